//! PRISM's polling benchmark generator (shared by the count test and the timing example).

/// PRISM's polling system with `n` stations, as in its benchmark suite's `polling.N.prism`.
pub fn polling(n: usize) -> String {
    let mut t = format!(
        "ctmc\nconst int N = {n};\nconst double mu = 1;\nconst double gamma = 200;\n\
         const double lambda = mu/N;\nmodule server\n  s : [1..{n}];\n  a : [0..1];\n"
    );
    for i in 1..=n {
        let next = if i < n {
            "s+1".to_string()
        } else {
            "1".to_string()
        };
        t += &format!(
            "  [loop{i}a] (s={i})&(a=0) -> gamma : (s'={next});\n\
             \x20 [loop{i}b] (s={i})&(a=0) -> gamma : (a'=1);\n\
             \x20 [serve{i}] (s={i})&(a=1) -> mu : (s'={next})&(a'=0);\n"
        );
    }
    t += "endmodule\nmodule station1\n  s1 : [0..1];\n  [loop1a] (s1=0) -> 1 : (s1'=0);\n\
          \x20 [] (s1=0) -> lambda : (s1'=1);\n  [loop1b] (s1=1) -> 1 : (s1'=1);\n\
          \x20 [serve1] (s1=1) -> 1 : (s1'=0);\nendmodule\n";
    for i in 2..=n {
        t += &format!(
            "module station{i} = station1 [ s1=s{i}, loop1a=loop{i}a, loop1b=loop{i}b, \
             serve1=serve{i} ] endmodule\n"
        );
    }
    t
}
