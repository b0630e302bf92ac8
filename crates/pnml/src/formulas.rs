//! The MCC formula XML reader (owned by the logic front-end work).
