//! Syntax trees of PRISM model and property files.
//!
//! One expression type ([`Expr`]) serves the model language, the property language and the
//! resolved [`crate::Program`]: after checking, identifiers become [`ExprKind::Var`] /
//! [`ExprKind::Const`] (variables and undefined constants by index), defined constants are
//! folded into literals and formulas are inlined.
//!
//! Spans are byte ranges into the source. **Spans never take part in equality**: two trees
//! compare equal when they have the same structure, wherever they came from, so that
//! `parse(print(x)) == x` can be checked directly.

/// A byte range in a source file. Compares equal to every other span (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

/// Consistent with equality: spans do not contribute to hashes.
impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A name with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>) -> Ident {
        Ident {
            name: name.into(),
            span: Span::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Implies,
    Iff,
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Implies => "=>",
            BinOp::Iff => "<=>",
            BinOp::Or => "|",
            BinOp::And => "&",
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }
    /// Binding strength (higher binds tighter); see [`crate::print`] for the whole table.
    pub fn level(self) -> u8 {
        match self {
            BinOp::Implies => 3,
            BinOp::Iff => 4,
            BinOp::Or => 5,
            BinOp::And => 6,
            BinOp::Eq | BinOp::Ne => 8,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 9,
            BinOp::Add | BinOp::Sub => 10,
            BinOp::Mul | BinOp::Div => 11,
        }
    }
    pub fn is_relational(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Min,
    Max,
    Floor,
    Ceil,
    Round,
    Pow,
    Mod,
    Log,
}

impl Func {
    pub const ALL: [Func; 8] = [
        Func::Min,
        Func::Max,
        Func::Floor,
        Func::Ceil,
        Func::Round,
        Func::Pow,
        Func::Mod,
        Func::Log,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Floor => "floor",
            Func::Ceil => "ceil",
            Func::Round => "round",
            Func::Pow => "pow",
            Func::Mod => "mod",
            Func::Log => "log",
        }
    }
    pub fn from_name(s: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == s)
    }
    /// Allowed number of arguments: (min, max); `None` = unbounded.
    pub fn arity(self) -> (usize, Option<usize>) {
        match self {
            Func::Min | Func::Max => (2, None),
            Func::Floor | Func::Ceil | Func::Round => (1, Some(1)),
            Func::Pow | Func::Mod | Func::Log => (2, Some(2)),
        }
    }
}

/// Relational operator of a bound `P>=0.5`, `S<0.1`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl RelOp {
    pub fn symbol(self) -> &'static str {
        match self {
            RelOp::Lt => "<",
            RelOp::Le => "<=",
            RelOp::Gt => ">",
            RelOp::Ge => ">=",
        }
    }
}

/// `Pmin`/`Pmax`/`Rmin`/`Rmax` (nondeterminism resolution) or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MinMax {
    #[default]
    None,
    Min,
    Max,
}

/// `=?` or a bound `~ p`.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    Value,
    Bound(RelOp, Expr),
}

/// PRISM's old-style filter inside an operator: `P=? [ ... {states}{min}{max} ]`.
#[derive(Clone, Debug, PartialEq)]
pub struct OldFilter {
    pub states: Expr,
    pub min: bool,
    pub max: bool,
}

/// `P[..]`
#[derive(Clone, Debug, PartialEq)]
pub struct ProbOp {
    pub minmax: MinMax,
    pub query: Query,
    pub path: Expr,
    pub filter: Option<OldFilter>,
}

/// `S[..]`
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyOp {
    pub query: Query,
    pub expr: Expr,
    pub filter: Option<OldFilter>,
}

/// `R{"name"}` / `R{2}`
#[derive(Clone, Debug, PartialEq)]
pub enum RewardIndex {
    Name(String),
    Index(Expr),
}

/// What an `R` operator measures.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardPath {
    /// `C<=t` (bounded cumulative) or `C` (total reward) when `None`.
    Cumulative(Option<Expr>),
    /// `I=t`
    Instant(Expr),
    /// `F phi` (reachability reward)
    Reach(Expr),
    /// `S` (long-run average)
    Steady,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RewardOp {
    pub index: Option<RewardIndex>,
    pub minmax: MinMax,
    pub query: Query,
    pub path: RewardPath,
    pub filter: Option<OldFilter>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TempOp {
    Next,
    Finally,
    Globally,
    Until,
    WeakUntil,
    Release,
}

impl TempOp {
    pub fn symbol(self) -> &'static str {
        match self {
            TempOp::Next => "X",
            TempOp::Finally => "F",
            TempOp::Globally => "G",
            TempOp::Until => "U",
            TempOp::WeakUntil => "W",
            TempOp::Release => "R",
        }
    }
    pub fn is_binary(self) -> bool {
        matches!(self, TempOp::Until | TempOp::WeakUntil | TempOp::Release)
    }
}

/// Time bound of a temporal operator.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum TimeBound {
    #[default]
    None,
    Le(Expr),
    Lt(Expr),
    Ge(Expr),
    Gt(Expr),
    /// `[a,b]`
    Interval(Expr, Expr),
    /// `=t`, i.e. `[t,t]`
    Eq(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Temporal {
    pub op: TempOp,
    /// Left operand of `U`, `W`, `R`; `None` for `X`, `F`, `G`.
    pub left: Option<Expr>,
    pub right: Expr,
    pub bound: TimeBound,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterOp {
    Min,
    Max,
    ArgMin,
    ArgMax,
    Count,
    Sum,
    Avg,
    First,
    Range,
    Forall,
    Exists,
    State,
    Print,
    PrintAll,
}

impl FilterOp {
    pub const ALL: [FilterOp; 14] = [
        FilterOp::Min,
        FilterOp::Max,
        FilterOp::ArgMin,
        FilterOp::ArgMax,
        FilterOp::Count,
        FilterOp::Sum,
        FilterOp::Avg,
        FilterOp::First,
        FilterOp::Range,
        FilterOp::Forall,
        FilterOp::Exists,
        FilterOp::State,
        FilterOp::Print,
        FilterOp::PrintAll,
    ];
    pub fn name(self) -> &'static str {
        match self {
            FilterOp::Min => "min",
            FilterOp::Max => "max",
            FilterOp::ArgMin => "argmin",
            FilterOp::ArgMax => "argmax",
            FilterOp::Count => "count",
            FilterOp::Sum => "sum",
            FilterOp::Avg => "avg",
            FilterOp::First => "first",
            FilterOp::Range => "range",
            FilterOp::Forall => "forall",
            FilterOp::Exists => "exists",
            FilterOp::State => "state",
            FilterOp::Print => "print",
            FilterOp::PrintAll => "printall",
        }
    }
    pub fn from_name(s: &str) -> Option<FilterOp> {
        FilterOp::ALL.into_iter().find(|f| f.name() == s)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub op: FilterOp,
    pub prop: Expr,
    /// The states to filter over; `None` = all (reachable) states.
    pub states: Option<Expr>,
}

/// `E [ path ]` / `A [ path ]`
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathQuant {
    Exists,
    Forall,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Bool(bool),
    Int(i64),
    Double(f64),
    /// An unresolved identifier (variable, constant or formula) as written.
    Ident(String),
    /// Resolved: a state variable, by index into [`crate::Program::variables`].
    Var {
        index: usize,
        name: String,
    },
    /// Resolved: a constant whose value is not known (left undefined), by index into
    /// [`crate::Program::constants`] (or, with `props = true`, the property file's constants).
    Const {
        index: usize,
        name: String,
        props: bool,
    },
    /// `"name"`: a label (or, in properties, a reference to a named property).
    Label(String),
    /// Resolved: a reference `"name"` to an earlier property of the same file, by index.
    PropRef {
        index: usize,
        name: String,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
    Prob(Box<ProbOp>),
    Steady(Box<SteadyOp>),
    Reward(Box<RewardOp>),
    Temporal(Box<Temporal>),
    PathQuant(PathQuant, Box<Expr>),
    Filter(Box<Filter>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
    /// An expression without position (for generated trees).
    pub fn bare(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::default(),
        }
    }
    pub fn bool(b: bool) -> Expr {
        Expr::bare(ExprKind::Bool(b))
    }
    pub fn int(i: i64) -> Expr {
        Expr::bare(ExprKind::Int(i))
    }
    pub fn double(d: f64) -> Expr {
        Expr::bare(ExprKind::Double(d))
    }
    pub fn ident(s: &str) -> Expr {
        Expr::bare(ExprKind::Ident(s.to_string()))
    }
    pub fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
        let span = l.span.to(r.span);
        Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)), span)
    }
    pub fn unary(op: UnOp, e: Expr) -> Expr {
        let span = e.span;
        Expr::new(ExprKind::Unary(op, Box::new(e)), span)
    }

    /// Visit the direct subexpressions.
    pub fn children(&self) -> Vec<&Expr> {
        let mut v = Vec::new();
        match &self.kind {
            ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Double(_)
            | ExprKind::Ident(_)
            | ExprKind::Var { .. }
            | ExprKind::Const { .. }
            | ExprKind::Label(_)
            | ExprKind::PropRef { .. } => {}
            ExprKind::Unary(_, a) => v.push(&**a),
            ExprKind::Binary(_, a, b) => {
                v.push(&**a);
                v.push(&**b)
            }
            ExprKind::Ite(a, b, c) => {
                v.push(&**a);
                v.push(&**b);
                v.push(&**c)
            }
            ExprKind::Call(_, args) => v.extend(args.iter()),
            ExprKind::Prob(p) => {
                push_query(&mut v, &p.query);
                v.push(&p.path);
                push_old_filter(&mut v, &p.filter);
            }
            ExprKind::Steady(s) => {
                push_query(&mut v, &s.query);
                v.push(&s.expr);
                push_old_filter(&mut v, &s.filter);
            }
            ExprKind::Reward(r) => {
                if let Some(RewardIndex::Index(e)) = &r.index {
                    v.push(e);
                }
                push_query(&mut v, &r.query);
                match &r.path {
                    RewardPath::Cumulative(Some(e))
                    | RewardPath::Instant(e)
                    | RewardPath::Reach(e) => v.push(e),
                    RewardPath::Cumulative(None) | RewardPath::Steady => {}
                }
                push_old_filter(&mut v, &r.filter);
            }
            ExprKind::Temporal(t) => {
                match &t.bound {
                    TimeBound::None => {}
                    TimeBound::Le(e)
                    | TimeBound::Lt(e)
                    | TimeBound::Ge(e)
                    | TimeBound::Gt(e)
                    | TimeBound::Eq(e) => v.push(e),
                    TimeBound::Interval(a, b) => {
                        v.push(a);
                        v.push(b)
                    }
                }
                if let Some(l) = &t.left {
                    v.push(l);
                }
                v.push(&t.right);
            }
            ExprKind::PathQuant(_, e) => v.push(&**e),
            ExprKind::Filter(f) => {
                v.push(&f.prop);
                if let Some(s) = &f.states {
                    v.push(s);
                }
            }
        }
        v
    }

    /// Depth of the tree (a leaf has depth 1). Iterative: safe on any tree.
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            for c in e.children() {
                stack.push((c, d + 1));
            }
        }
        max
    }

    /// Is this a literal or a constant-free tree of literals and operators (no variables,
    /// constants, labels or property operators)?
    pub fn is_literal(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Double(_)
        )
    }
}

fn push_query<'a>(v: &mut Vec<&'a Expr>, q: &'a Query) {
    if let Query::Bound(_, e) = q {
        v.push(e);
    }
}

fn push_old_filter<'a>(v: &mut Vec<&'a Expr>, f: &'a Option<OldFilter>) {
    if let Some(f) = f {
        v.push(&f.states);
    }
}

// ----------------------------------------------------------------------------------------
// Model files

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelType {
    Ctmc,
    Dtmc,
    Mdp,
}

impl ModelType {
    pub fn name(self) -> &'static str {
        match self {
            ModelType::Ctmc => "ctmc",
            ModelType::Dtmc => "dtmc",
            ModelType::Mdp => "mdp",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstType {
    Int,
    Double,
    Bool,
}

impl ConstType {
    pub fn name(self) -> &'static str {
        match self {
            ConstType::Int => "int",
            ConstType::Double => "double",
            ConstType::Bool => "bool",
        }
    }
}

/// `const int N = 3;` / `const double T;`
#[derive(Clone, Debug, PartialEq)]
pub struct ConstDecl {
    pub name: Ident,
    pub ty: ConstType,
    pub value: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum VarType {
    /// `[lo..hi]`
    Range(Expr, Expr),
    Bool,
    /// Unbounded `int` (parsed, refused by the checker).
    Int,
    /// `clock` (PTA only; parsed, refused by the checker).
    Clock,
}

/// `x : [0..N] init 1;`
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub name: Ident,
    pub ty: VarType,
    pub init: Option<Expr>,
    pub span: Span,
}

/// `(x'=e)`
#[derive(Clone, Debug, PartialEq)]
pub struct Assign {
    pub var: Ident,
    pub value: Expr,
}

/// `rate : (x'=e) & (y'=f)`; no assignments means `true`.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub prob: Option<Expr>,
    pub assigns: Vec<Assign>,
    pub span: Span,
}

/// `[action] guard -> updates;`
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub action: Option<Ident>,
    pub guard: Expr,
    pub updates: Vec<Update>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: Ident,
    pub vars: Vec<VarDecl>,
    pub commands: Vec<Command>,
    pub span: Span,
}

/// `module M2 = M1 [ a=b, ... ] endmodule`
#[derive(Clone, Debug, PartialEq)]
pub struct RenamedModule {
    pub name: Ident,
    pub base: Ident,
    pub renames: Vec<(Ident, Ident)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FormulaDecl {
    pub name: Ident,
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LabelDecl {
    pub name: Ident,
    pub expr: Expr,
    pub span: Span,
}

/// One line of a reward structure. `action`: `None` for a state reward, `Some(None)` for
/// `[]`, `Some(Some(a))` for `[a]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardItem {
    pub action: Option<Option<Ident>>,
    pub guard: Expr,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RewardStruct {
    pub name: Option<Ident>,
    pub items: Vec<RewardItem>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParOp {
    /// `||`
    Full,
    /// `|||`
    Interleave,
    /// `|[a,b]|`
    Sync(Vec<Ident>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum SystemKind {
    Module(Ident),
    Par(ParOp, Box<SystemExpr>, Box<SystemExpr>),
    /// `e / {a, b}`
    Hide(Box<SystemExpr>, Vec<Ident>),
    /// `e {a <- b, ...}`
    Rename(Box<SystemExpr>, Vec<(Ident, Ident)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SystemExpr {
    pub kind: SystemKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    ModelType(ModelType, Span),
    Const(ConstDecl),
    Global(VarDecl),
    Formula(FormulaDecl),
    Label(LabelDecl),
    Module(Module),
    Renamed(RenamedModule),
    Rewards(RewardStruct),
    /// `init ... endinit`
    Init(Expr, Span),
    System(SystemExpr, Span),
}

/// Where a tree was parsed from (file name and text), so that later checks can show the
/// source in their diagnostics. Like spans, it never takes part in equality.
#[derive(Clone, Debug, Default)]
pub struct Origin(pub Option<crate::diag::Source>);

impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

/// A parsed model file: its declarations in source order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelFile {
    pub items: Vec<Item>,
    pub origin: Origin,
}

// ----------------------------------------------------------------------------------------
// Property files

#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub name: Option<Ident>,
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PropItem {
    Const(ConstDecl),
    Label(LabelDecl),
    Formula(FormulaDecl),
    Property(Property),
}

/// A parsed property file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PropertiesFile {
    pub items: Vec<PropItem>,
    pub origin: Origin,
}

impl PropertiesFile {
    pub fn properties(&self) -> impl Iterator<Item = &Property> {
        self.items.iter().filter_map(|i| match i {
            PropItem::Property(p) => Some(p),
            _ => None,
        })
    }
}
