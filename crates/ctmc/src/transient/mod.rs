//! Transient analysis with guaranteed bounds (thesis section 2.3.2 and 7.1): Poisson weights
//! with a bounded truncation error ([`poisson`], after Fox and Glynn) and uniformization over
//! any engine's rate matrix ([`uniform`]). The time-bounded CSL operators of
//! [`crate::props`] (`U<=t`, `U[t1,t2]`, `U>=t`, `C<=t`, `I=t`) are built on these.

pub mod poisson;
pub mod uniform;

pub use poisson::{fox_glynn, PoissonWindow};
pub use uniform::{
    backward_transient, backward_until, cumulative, steps, uniformization_rate, Bounds,
    StepProgress,
};
