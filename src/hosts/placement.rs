//! Which host runs which rank: the host list as Hydra takes it
//! (`-hosts a:2,b:2`, or a host file of `host[:slots]` lines) and Hydra's
//! placement (each host's slots filled in order, round and round).

/// A host and how many ranks it takes per round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSlots {
    pub name: String,
    pub slots: u32,
}

fn entry(s: &str, whence: &str) -> Result<HostSlots, String> {
    let (name, slots) = match s.rsplit_once(':') {
        Some((n, k)) => {
            let k: u32 = k.trim().parse().map_err(|_| {
                format!("{whence}: `{s}`: the slot count after `:` is not a number")
            })?;
            (n.trim(), k)
        }
        None => (s.trim(), 1),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("{whence}: `{s}` is not a host name"));
    }
    if slots == 0 {
        return Err(format!("{whence}: `{s}`: a host takes at least one rank"));
    }
    Ok(HostSlots {
        name: name.to_string(),
        slots,
    })
}

/// `a:2,b:2` (a host without `:n` takes one rank).
pub fn parse_list(list: &str) -> Result<Vec<HostSlots>, String> {
    let v = list
        .split(',')
        .map(|s| entry(s, "--hosts"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(v)
}

/// A host file: one `host[:slots]` per line; `#` starts a comment.
pub fn parse_file(text: &str, path: &str) -> Result<Vec<HostSlots>, String> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if !line.is_empty() {
            v.push(entry(line, &format!("{path}:{}", i + 1))?);
        }
    }
    if v.is_empty() {
        return Err(format!("{path}: no host in the file"));
    }
    Ok(v)
}

/// Hydra's list form of `hosts` (`a:2,b:2`).
pub fn to_list(hosts: &[HostSlots]) -> String {
    hosts
        .iter()
        .map(|h| format!("{}:{}", h.name, h.slots))
        .collect::<Vec<_>>()
        .join(",")
}

/// The host of each of `nranks` ranks, as Hydra places them: the first
/// host's slots, then the next host's, and again from the first.
pub fn place(hosts: &[HostSlots], nranks: u32) -> Vec<u32> {
    let total: u32 = hosts.iter().map(|h| h.slots).sum();
    (0..nranks)
        .map(|r| {
            let mut pos = r % total;
            for (i, h) in hosts.iter().enumerate() {
                if pos < h.slots {
                    return i as u32;
                }
                pos -= h.slots;
            }
            unreachable!("a position below the total of slots")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hydra_fills_each_hosts_slots_round_and_round() {
        // checked against mpiexec.hydra -hosts a:2,b:1 -n 5 (PMI_RANK per host)
        let h = parse_list("a:2,b:1").unwrap();
        assert_eq!(place(&h, 5), vec![0, 0, 1, 0, 0]);
        assert_eq!(to_list(&h), "a:2,b:1");
        let f = parse_file("a:2\n# comment\nb  # one slot\n\n", "hf").unwrap();
        assert_eq!(f, h);
    }

    #[test]
    fn bad_entries_are_named() {
        assert_eq!(
            parse_list("a:x").unwrap_err(),
            "--hosts: `a:x`: the slot count after `:` is not a number"
        );
        assert_eq!(
            parse_list("a,b:0").unwrap_err(),
            "--hosts: `b:0`: a host takes at least one rank"
        );
        assert_eq!(
            parse_file("a\nb c\n", "hf").unwrap_err(),
            "hf:2: `b c` is not a host name"
        );
        assert_eq!(
            parse_file("# none\n", "hf").unwrap_err(),
            "hf: no host in the file"
        );
    }
}
