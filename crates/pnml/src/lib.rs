//! PNML front-end: reads Place/Transition nets as the Model Checking Contest ships them,
//! writes PNML, and reads the contest's formula XML files.

pub mod formulas;
pub mod reader;
pub mod writer;

pub use reader::{
    looks_like_pnml, read_pnml_bytes, read_pnml_bytes_within, read_pnml_file,
    read_pnml_file_within, read_pnml_str, read_pnml_str_within, read_pnml_within, Location,
    PnmlError,
};
