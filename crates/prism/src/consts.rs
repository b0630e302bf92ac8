//! Values for undefined constants: `--const N=3,T=1:1:5`.

use crate::program::Value;

/// One constant's supplied value: a single value or a range `start:step:end` / `start:end`.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstSpec {
    Single(Value),
    Range {
        start: Value,
        step: Value,
        end: Value,
    },
}

/// Values for undefined constants, as PRISM's `-const`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ConstOverrides {
    entries: Vec<(String, ConstSpec)>,
}

/// At most this many concrete assignments are generated from ranges.
pub const MAX_ASSIGNMENTS: usize = 100_000;

fn parse_value(s: &str) -> Result<Value, String> {
    let t = s.trim();
    match t {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Ok(i) = t.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    let looks_numeric = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    match t.parse::<f64>() {
        Ok(d) if d.is_finite() && looks_numeric => Ok(Value::Double(d)),
        _ => Err(format!("`{t}` is not a number or boolean")),
    }
}

impl ConstOverrides {
    pub fn new() -> ConstOverrides {
        ConstOverrides::default()
    }

    /// Parse `N=3,T=12` or with ranges `T=1:1:5` (start:step:end) / `T=1:5` (step 1).
    pub fn parse(s: &str) -> Result<ConstOverrides, String> {
        let mut o = ConstOverrides::default();
        o.add(s)?;
        Ok(o)
    }

    /// Parse several `--const` arguments.
    pub fn parse_all<S: AsRef<str>>(args: &[S]) -> Result<ConstOverrides, String> {
        let mut o = ConstOverrides::default();
        for a in args {
            o.add(a.as_ref())?;
        }
        Ok(o)
    }

    fn add(&mut self, s: &str) -> Result<(), String> {
        for part in s.split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let Some((name, val)) = part.split_once('=') else {
                return Err(format!("`{part}`: expected NAME=VALUE"));
            };
            let name = name.trim();
            let ok_name = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok_name {
                return Err(format!("`{name}` is not a constant name"));
            }
            if self.entries.iter().any(|(n, _)| n == name) {
                return Err(format!("constant `{name}` is given twice"));
            }
            let pieces: Vec<&str> = val.split(':').collect();
            let spec = match pieces.as_slice() {
                [v] => ConstSpec::Single(parse_value(v).map_err(|e| format!("{name}: {e}"))?),
                [a, b] | [a, _, b] => {
                    let start = parse_value(a).map_err(|e| format!("{name}: {e}"))?;
                    let end = parse_value(b).map_err(|e| format!("{name}: {e}"))?;
                    let step = if pieces.len() == 3 {
                        parse_value(pieces[1]).map_err(|e| format!("{name}: {e}"))?
                    } else {
                        Value::Int(1)
                    };
                    let (Some(s0), Some(st), Some(e0)) =
                        (start.as_f64(), step.as_f64(), end.as_f64())
                    else {
                        return Err(format!("{name}: ranges need numbers"));
                    };
                    if st == 0.0 || (e0 - s0) * st < 0.0 {
                        return Err(format!(
                            "{name}: the step {step} never gets from {start} to {end}"
                        ));
                    }
                    ConstSpec::Range { start, step, end }
                }
                _ => {
                    return Err(format!(
                        "{name}: expected VALUE, START:END or START:STEP:END"
                    ))
                }
            };
            self.entries.push((name.to_string(), spec));
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn entries(&self) -> &[(String, ConstSpec)] {
        &self.entries
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| n.as_str())
    }
    pub fn get(&self, name: &str) -> Option<&ConstSpec> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }
    /// The single value of `name` (`None` if absent or a range).
    pub fn value(&self, name: &str) -> Option<Value> {
        match self.get(name)? {
            ConstSpec::Single(v) => Some(*v),
            ConstSpec::Range { .. } => None,
        }
    }
    /// True when no entry is a range.
    pub fn is_concrete(&self) -> bool {
        self.entries
            .iter()
            .all(|(_, s)| matches!(s, ConstSpec::Single(_)))
    }
    pub fn insert(&mut self, name: &str, v: Value) {
        self.entries.retain(|(n, _)| n != name);
        self.entries.push((name.to_string(), ConstSpec::Single(v)));
    }

    fn range_values(spec: &ConstSpec) -> Vec<Value> {
        match spec {
            ConstSpec::Single(v) => vec![*v],
            ConstSpec::Range { start, step, end } => {
                let mut out = Vec::new();
                if let (Value::Int(a), Value::Int(s), Value::Int(b)) = (start, step, end) {
                    let mut x = *a;
                    while (*s > 0 && x <= *b) || (*s < 0 && x >= *b) {
                        out.push(Value::Int(x));
                        if out.len() > MAX_ASSIGNMENTS {
                            break;
                        }
                        match x.checked_add(*s) {
                            Some(n) => x = n,
                            None => break,
                        }
                    }
                } else {
                    let (a, s, b) = (
                        start.as_f64().unwrap_or(0.0),
                        step.as_f64().unwrap_or(1.0),
                        end.as_f64().unwrap_or(0.0),
                    );
                    let eps = s.abs() * 1e-9;
                    let mut i = 0u64;
                    loop {
                        let x = a + i as f64 * s;
                        if (s > 0.0 && x > b + eps)
                            || (s < 0.0 && x < b - eps)
                            || out.len() > MAX_ASSIGNMENTS
                        {
                            break;
                        }
                        out.push(Value::Double(x));
                        i += 1;
                    }
                }
                out
            }
        }
    }

    /// Every concrete assignment (the product of all ranges, last constant varying fastest,
    /// as PRISM does). One assignment when there is no range.
    pub fn assignments(&self) -> Result<Vec<ConstOverrides>, String> {
        let mut out = vec![ConstOverrides::default()];
        for (name, spec) in &self.entries {
            let vals = Self::range_values(spec);
            if vals.len() > MAX_ASSIGNMENTS {
                let ConstSpec::Range { start, step, end } = spec else {
                    unreachable!("one value")
                };
                return Err(format!(
                    "{name}: the range {start}:{step}:{end} has more than {MAX_ASSIGNMENTS} values"
                ));
            }
            if out.len().saturating_mul(vals.len()) > MAX_ASSIGNMENTS {
                return Err(format!(
                    "the constant ranges give more than {MAX_ASSIGNMENTS} combinations"
                ));
            }
            let mut next = Vec::with_capacity(out.len() * vals.len());
            for o in &out {
                for v in &vals {
                    let mut o2 = o.clone();
                    o2.entries.push((name.clone(), ConstSpec::Single(*v)));
                    next.push(o2);
                }
            }
            out = next;
        }
        Ok(out)
    }

    /// Iterator over the concrete assignments (see [`ConstOverrides::assignments`]).
    pub fn iter_assignments(&self) -> Result<impl Iterator<Item = ConstOverrides>, String> {
        Ok(self.assignments()?.into_iter())
    }
}

impl std::fmt::Display for ConstOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (n, s)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match s {
                ConstSpec::Single(v) => write!(f, "{n}={v}")?,
                ConstSpec::Range { start, step, end } => write!(f, "{n}={start}:{step}:{end}")?,
            }
        }
        Ok(())
    }
}
