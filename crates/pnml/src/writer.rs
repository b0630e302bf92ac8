//! PNML writer.
