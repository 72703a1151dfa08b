//! The command line's errors (issue 48): each printed once, in one sentence naming what is
//! wrong, with a non-zero exit; and `steward demo` leaves no temporary folder behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder under the tests' scratch space.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `steward args` from the crate root with `TMPDIR` set to `tmp`.
fn steward_in(tmp: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(args)
        .env("TMPDIR", tmp)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the steward binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command failed with exit 2 and printed one line, `steward: ...`, which says `cause`
/// exactly once.
fn refused_once(o: &Output, cause: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit status; stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("steward: "), "{err}");
    assert_eq!(err.matches(cause).count(), 1, "`{cause}` said once: {err}");
    err
}

/// What is left in a folder.
fn left_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
}

/// `steward demo` with a race the daemon would refuse says the first real reason once, exits
/// non-zero, and removes the temporary folder it made (it would hold a secret seed).
#[test]
fn a_demo_that_cannot_race_says_why_once_and_leaves_no_folder() {
    let base = scratch("demo-refused");
    let bad_dat = base.join("not-a-track.dat");
    std::fs::write(&bad_dat, "root:x:0:0:root:/root:/bin/bash\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n").unwrap();
    let bad_dat = bad_dat.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["--track", "nosuch"], "no shipped track named `nosuch`"),
        (&["--cars", "0"], "--cars must be 1 to 10 (the grid of monaco)"),
        (&["--cars", "11"], "--cars must be 1 to 10 (the grid of monaco)"),
        (&["--laps", "0"], "--laps must be at least 1"),
        (&["--track", "some/file.dat"], "no such file, and no shipped track named `some/file.dat`"),
        (&["--track", bad_dat], "is not a Formula Dé .dat track: line 1"),
    ];
    for (i, (args, cause)) in cases.iter().enumerate() {
        let tmp = base.join(format!("tmp{i}"));
        std::fs::create_dir_all(&tmp).unwrap();
        let mut all = vec!["demo"];
        all.extend_from_slice(args);
        let out = steward_in(&tmp, &all);
        let err = refused_once(&out, cause);
        assert!(!err.contains("there is no game") && !err.contains("confirmation code"), "{args:?}: {err}");
        assert_eq!(left_in(&tmp), Vec::<String>::new(), "{args:?} left a folder behind");
    }
}

/// A demo that races removes its temporary folder too, and races on a track given as a file:
/// a `.toml` (under a name a CREATE could not carry) and, where the reference tracks are, an
/// imported `.dat`, as `steward sim --track` does.
#[test]
fn a_demo_races_on_a_track_file_and_leaves_no_folder() {
    let base = scratch("demo-file");
    let toml = base.join("my sprint (copy).toml");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tracks/sprint.toml"), &toml).unwrap();
    let mut tracks = vec![toml];
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference-tracks/baku.dat");
    if reference.is_file() {
        tracks.push(reference);
    } else {
        println!("skipped the .dat demo: {} is absent", reference.display());
    }
    for (i, track) in tracks.iter().enumerate() {
        let tmp = base.join(format!("tmp{i}"));
        std::fs::create_dir_all(&tmp).unwrap();
        let track = track.to_str().unwrap();
        let out = steward_in(&tmp, &["demo", "--track", track, "--cars", "2", "--laps", "1", "--grid", "join"]);
        assert!(out.status.success(), "{track}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Mail: the daemon read") && text.contains("now removed"), "{track}: {text}");
        assert_eq!(left_in(&tmp), Vec::<String>::new(), "{track}: the demo left its folder behind");
    }
    // With --dir the game stays, on the track of the file.
    let dir = base.join("kept");
    let track = tracks[0].to_str().unwrap();
    let out =
        steward_in(&base, &["demo", "--dir", dir.to_str().unwrap(), "--track", track, "--cars", "2", "--grid", "join"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Game directory: "));
    assert!(dir.join("tracks/my-sprint--copy-.toml").is_file(), "{:?}", left_in(&dir.join("tracks")));
}

/// An OS error under a command is said once (not once by the message and again as its cause),
/// with the path it is about.
#[test]
fn an_os_error_is_said_once_with_its_path() {
    let base = scratch("os-errors");
    let missing = base.join("missing");
    let missing = missing.to_str().unwrap();
    let file = base.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let under_file = file.join("games");
    let under_file = under_file.to_str().unwrap();
    let out_dir = base.join("site");
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["serve", "--config", missing], "No such file or directory"),
        (vec!["site", "--games", missing, "--out", out_dir.to_str().unwrap()], "No such file or directory"),
        (vec!["track", "show", "monaco", "--cars", missing], "No such file or directory"),
        (vec!["sim", "--track", "sprint", "--cars", "2", "--laps", "1", "--keep", under_file], "Not a directory"),
        (vec!["track", "import", missing], "No such file or directory"),
    ];
    for (args, cause) in &cases {
        let out = steward_in(&base, args);
        let err = refused_once(&out, cause);
        assert_eq!(err.matches("os error").count(), 1, "{args:?}: {err}");
        let path = if err.contains(under_file) { under_file } else { missing };
        assert!(err.contains(path), "{args:?} names the path: {err}");
    }
    // No such game: said once, with the games folder.
    let out = steward_in(&base, &["show", "--games", missing, "nosuch"]);
    let err = refused_once(&out, "there is no game `nosuch`");
    assert!(err.contains(missing), "{err}");
}

/// A file that is not a `.dat` track is refused in one line, not one per line of the file.
#[test]
fn a_file_that_is_no_dat_track_is_refused_in_one_line() {
    let base = scratch("not-dat");
    let passwd = base.join("passwd");
    let lines: String =
        (0..30).map(|i| format!("user{i}:x:{i}:{i}:User {i}:/home/user{i}:/bin/sh\n")).collect::<String>();
    std::fs::write(&passwd, &lines).unwrap();
    let p = passwd.to_str().unwrap();
    let out = steward_in(&base, &["track", "import", p]);
    let err = refused_once(&out, "is not a Formula Dé .dat track");
    assert!(err.starts_with(&format!("steward: {p} is not a Formula Dé .dat track: line 1: ")), "{err}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
}
