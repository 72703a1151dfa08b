//! The real-server harness: Dovecot (IMAP, LMTP) and Postfix (SMTP) on loopback.
