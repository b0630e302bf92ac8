//! Reward structures (PRISM's `rewards ... endrewards`) as per-state reward rates.

use saturn_model::expr::{Expr, Value};
use saturn_model::GeneralModel;

use super::check::CheckError;
use crate::chain::Chain;

/// One reward structure: state rewards `guard : value` (earned per time unit in a state
/// satisfying `guard`) and transition rewards `[action] guard : value` (earned by each
/// transition of an event with that action, `None` = unlabelled, fired in a state satisfying
/// `guard`). Several items that apply add up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RewardStructure {
    pub name: Option<String>,
    pub state: Vec<(Expr, Expr)>,
    pub trans: Vec<(Option<usize>, Expr, Expr)>,
}

fn number(e: &Expr, s: &[i64], what: &str) -> Result<f64, CheckError> {
    let v = e
        .eval(s)
        .map_err(|err| CheckError::Eval(format!("{what}: {err}")))?;
    let x = match v {
        Value::Bool(b) => {
            return Err(CheckError::Eval(format!(
                "{what}: a reward must be a number, found {b}"
            )))
        }
        v => v.as_f64().unwrap_or(f64::NAN),
    };
    if !x.is_finite() {
        return Err(CheckError::Eval(format!(
            "{what}: reward {x} is not finite"
        )));
    }
    Ok(x)
}

fn holds(e: &Expr, s: &[i64], what: &str) -> Result<bool, CheckError> {
    match e.eval(s) {
        Ok(Value::Bool(b)) => Ok(b),
        Ok(_) => Err(CheckError::Eval(format!(
            "{what}: a guard must be a boolean"
        ))),
        Err(err) => Err(CheckError::Eval(format!("{what}: {err}"))),
    }
}

impl RewardStructure {
    /// The state rewards of each state of `ctmc` (no transition rewards: PRISM's `I=t`).
    pub fn state_rates(&self, ctmc: &dyn Chain) -> Result<Vec<f64>, CheckError> {
        let what = self.describe();
        let mut out = vec![0.0; ctmc.len()];
        ctmc.for_each_state(&mut |i, s| {
            for (g, v) in &self.state {
                if holds(g, s, &what)? {
                    out[i] += number(v, s, &what)?;
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    fn describe(&self) -> String {
        match &self.name {
            Some(n) => format!("reward structure \"{n}\""),
            None => "reward structure".to_string(),
        }
    }

    /// The reward rate of each state of `ctmc`: its state rewards plus, for every enabled
    /// event, the event's rate times the transition rewards that apply to it (so that the
    /// long-run average and the accumulated reward count transitions at their rates).
    /// `actions[e]` is the action of event `e`.
    pub fn rates(
        &self,
        model: &GeneralModel,
        actions: &[Option<usize>],
        ctmc: &dyn Chain,
    ) -> Result<Vec<f64>, CheckError> {
        let what = self.describe();
        // the transition rewards that apply to each event (by its action), decided once
        let items: Vec<(usize, Vec<(&Expr, &Expr)>)> = actions
            .iter()
            .enumerate()
            .map(|(e, &act)| {
                let its = self.trans.iter().filter(|(a, _, _)| *a == act);
                (e, its.map(|(_, g, v)| (g, v)).collect::<Vec<_>>())
            })
            .filter(|(_, its)| !its.is_empty())
            .collect();
        let mut out = vec![0.0; ctmc.len()];
        ctmc.for_each_state(&mut |i, s| {
            let r = &mut out[i];
            for (g, v) in &self.state {
                if holds(g, s, &what)? {
                    *r += number(v, s, &what)?;
                }
            }
            for (e, its) in &items {
                let mut tr = 0.0;
                for &(g, v) in its {
                    if holds(g, s, &what)? {
                        tr += number(v, s, &what)?;
                    }
                }
                if tr != 0.0 {
                    if let Some(rate) = model
                        .rate(*e, s)
                        .map_err(|err| CheckError::Eval(err.to_string()))?
                    {
                        *r += rate * tr;
                    }
                }
            }
            Ok(())
        })?;
        Ok(out)
    }
}
