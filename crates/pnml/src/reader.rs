//! PNML reader.
