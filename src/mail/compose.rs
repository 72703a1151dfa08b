//! Mail texts from `templates/` and the MIME messages that carry them.
//!
//! Every reply is `multipart/alternative`: the text itself, and an HTML part holding the same
//! text in a `<pre>` block, so that webmail (which re-flows plain text in a proportional font)
//! keeps the board's columns. Replies are marked `Auto-Submitted: auto-replied` (RFC 3834) so
//! that other robots do not answer them.

use std::path::PathBuf;

use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use minijinja::Environment;
use serde::Serialize;

use super::Lang;

/// The built-in templates: (language, name, text).
const BUILT_IN: &[(&str, &str, &str)] = &[
    ("en", "receipt", include_str!("../../templates/en/receipt.txt")),
    ("en", "report", include_str!("../../templates/en/report.txt")),
    ("en", "welcome", include_str!("../../templates/en/welcome.txt")),
    ("en", "copy", include_str!("../../templates/en/copy.txt")),
    ("en", "reminder", include_str!("../../templates/en/reminder.txt")),
    ("en", "announce", include_str!("../../templates/en/announce.txt")),
    ("en", "help", include_str!("../../templates/en/help.txt")),
    ("fr", "receipt", include_str!("../../templates/fr/receipt.txt")),
    ("fr", "report", include_str!("../../templates/fr/report.txt")),
    ("fr", "welcome", include_str!("../../templates/fr/welcome.txt")),
    ("fr", "copy", include_str!("../../templates/fr/copy.txt")),
    ("fr", "reminder", include_str!("../../templates/fr/reminder.txt")),
    ("fr", "announce", include_str!("../../templates/fr/announce.txt")),
    ("fr", "help", include_str!("../../templates/fr/help.txt")),
];

/// A template that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// No such template.
    #[error("no template `{0}`")]
    Missing(String),
    /// The template does not render.
    #[error("template {name}: {message}")]
    Render {
        /// `lang/name`.
        name: String,
        /// What went wrong, with its line.
        message: String,
    },
    /// The message cannot be built (a bad address...).
    #[error("cannot build the mail: {0}")]
    Build(String),
}

/// The mail texts.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The built-in texts, each replaced by `dir/<lang>/<name>.txt` when that file exists.
    pub fn new(dir: Option<PathBuf>) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| TemplateError::Render { name: "syntax".into(), message: e.to_string() })?;
        env.set_syntax(syntax);
        for (lang, name, text) in BUILT_IN {
            let key = format!("{lang}/{name}");
            let text = dir
                .as_ref()
                .and_then(|d| std::fs::read_to_string(d.join(lang).join(format!("{name}.txt"))).ok())
                .unwrap_or_else(|| (*text).to_string());
            env.add_template_owned(key.clone(), text)
                .map_err(|e| TemplateError::Render { name: key, message: e.to_string() })?;
        }
        Ok(Templates { env })
    }

    /// Renders template `name` in `lang` with `ctx`.
    pub fn render<S: Serialize>(&self, lang: Lang, name: &str, ctx: S) -> Result<String, TemplateError> {
        let key = format!("{}/{name}", lang.code());
        let t = self.env.get_template(&key).map_err(|_| TemplateError::Missing(key.clone()))?;
        t.render(minijinja::value::Serde(ctx))
            .map_err(|e| TemplateError::Render { name: key, message: format!("{e:#}") })
    }
}

/// A mail to build.
#[derive(Clone, Debug, Default)]
pub struct Draft {
    /// Recipients.
    pub to: Vec<String>,
    /// Subject.
    pub subject: String,
    /// The text.
    pub text: String,
    /// The message answered, for threading.
    pub in_reply_to: Option<String>,
    /// This message's id (without angle brackets), stable for a given reply.
    pub message_id: String,
}

/// Builds the RFC 5322 bytes of `draft`, from `from_name <from>`.
pub fn build(draft: &Draft, from_name: &str, from: &str) -> Result<Vec<u8>, TemplateError> {
    let bad = |e: &dyn std::fmt::Display| TemplateError::Build(e.to_string());
    let from_box = Mailbox::new(Some(from_name.to_string()), from.parse().map_err(|e| bad(&e))?);
    let mut b = Message::builder()
        .from(from_box)
        .subject(draft.subject.clone())
        .message_id(Some(format!("<{}>", draft.message_id)))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("Auto-Submitted"), "auto-replied".into()))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("X-Auto-Response-Suppress"), "All".into()));
    for t in &draft.to {
        b = b.to(Mailbox::new(None, t.parse().map_err(|e| bad(&e))?));
    }
    if let Some(r) = &draft.in_reply_to {
        let r = if r.starts_with('<') { r.clone() } else { format!("<{r}>") };
        b = b.in_reply_to(r.clone()).references(r);
    }
    let html = format!(
        "<!DOCTYPE html>\n<html><body><pre style=\"font-family: monospace\">{}</pre></body></html>\n",
        escape_html(&draft.text)
    );
    let m = b.multipart(MultiPart::alternative_plain_html(draft.text.clone(), html)).map_err(|e| bad(&e))?;
    Ok(m.formatted())
}

/// `<`, `>`, `&` and `"` as HTML entities.
pub fn escape_html(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}
