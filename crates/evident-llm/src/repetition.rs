//! Noticing a reply that has begun to loop. Small models at temperature 0
//! sometimes write the same sentence or block over and over until the reply
//! limit: on two CPU cores, a thousand tokens of nothing, for two minutes.
//! A reply whose text ends in one unit (8 to 512 bytes, at least four
//! different characters, so rules and tables of dashes do not count) written
//! at least four times in a row, and at least 80 bytes of it, is looping.

const MIN_PERIOD: usize = 8;
const MAX_PERIOD: usize = 512;
const MIN_REPEATS: usize = 4;
const MIN_LOOP_BYTES: usize = 80;
const MIN_DISTINCT_BYTES: usize = 4;
/// How often the guard looks, in bytes.
const CHECK_EVERY: usize = 32;
/// Past this many bytes the guard stops watching: a reply this long is far
/// over any reply limit the agent sets, and watching costs per byte.
const WATCHED_BYTES: usize = 64 * 1024;
/// The bytes kept to compare with, a power of two over `MAX_PERIOD`.
const RING: usize = 1024;

fn span(period: usize) -> usize {
    (MIN_REPEATS * period).max(MIN_LOOP_BYTES.div_ceil(period) * period)
}

/// Fed the reply's text as it streams; says when it has begun to loop. Work
/// per byte is constant (a match-run counter per period) and stops after
/// `WATCHED_BYTES`, so a hostile endless reply costs no more than a long one.
#[derive(Debug)]
pub struct RepetitionGuard {
    ring: [u8; RING],
    seen: usize,
    /// `runs[p - MIN_PERIOD]`: how many of the last bytes equal the byte `p` before them.
    runs: Vec<u32>,
    /// Per byte value, 1 + where it was last seen (0: never).
    last_seen: [usize; 256],
}

impl Default for RepetitionGuard {
    fn default() -> Self {
        RepetitionGuard {
            ring: [0; RING],
            seen: 0,
            runs: vec![0; MAX_PERIOD - MIN_PERIOD + 1],
            last_seen: [0; 256],
        }
    }
}

impl RepetitionGuard {
    /// Adds streamed text; true once the text so far ends in a loop.
    pub fn feed(&mut self, text: &str) -> bool {
        for &byte in text.as_bytes() {
            if self.seen >= WATCHED_BYTES {
                return false;
            }
            let at = self.seen;
            for (offset, run) in self.runs.iter_mut().enumerate() {
                let period = MIN_PERIOD + offset;
                if at >= period && self.ring[(at - period) % RING] == byte {
                    *run += 1;
                } else {
                    *run = 0;
                }
            }
            self.ring[at % RING] = byte;
            self.last_seen[byte as usize] = at + 1;
            self.seen += 1;
            if self.seen.is_multiple_of(CHECK_EVERY) && self.looping() {
                return true;
            }
        }
        false
    }

    fn looping(&self) -> bool {
        // The unit is any `period` bytes of a periodic tail: it has enough
        // different bytes when the MIN_DISTINCT_BYTES-th most recently seen
        // byte value was seen within the last `period` bytes.
        let mut recent: Vec<usize> = self.last_seen.iter().copied().filter(|&p| p > 0).collect();
        recent.sort_unstable_by(|a, b| b.cmp(a));
        let Some(&nth) = recent.get(MIN_DISTINCT_BYTES - 1) else {
            return false;
        };
        let shortest = MIN_PERIOD.max(self.seen - nth + 1);
        (shortest..=MAX_PERIOD).any(|period| {
            let span = span(period);
            self.seen >= span && self.runs[period - MIN_PERIOD] as usize >= span - period
        })
    }
}

/// When `text` ends in a loop: `(period, start)`, the length of the repeated
/// unit and where the repetition begins. The smallest period wins.
pub fn looping_tail(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    for period in MIN_PERIOD..=MAX_PERIOD {
        let span = span(period);
        if span > n {
            break;
        }
        let tail = &bytes[n - span..];
        if !(period..span).all(|i| tail[i] == tail[i - period]) {
            continue;
        }
        let mut seen = [false; 256];
        let distinct = tail[..period]
            .iter()
            .filter(|&&b| !std::mem::replace(&mut seen[b as usize], true))
            .count();
        if distinct < MIN_DISTINCT_BYTES {
            continue;
        }
        let mut start = n - span;
        while start > 0 && bytes[start - 1] == bytes[start - 1 + period] {
            start -= 1;
        }
        return Some((period, start));
    }
    None
}

/// `text` with its loop, if any, cut to one copy of the repeated unit.
pub fn cut_loop(text: &mut String) -> bool {
    let Some((period, start)) = looping_tail(text) else {
        return false;
    };
    // Any `period` bytes from `start` on are one copy (in some rotation):
    // end it after a line, else a sentence, else a word, if the copy has one.
    let window = start + period..(start + 2 * period).min(text.len());
    let ends_after = |pattern: &str| {
        window
            .clone()
            .find(|&e| text.is_char_boundary(e) && text[..e].ends_with(pattern))
    };
    let mut end = ends_after("\n")
        .or_else(|| ends_after(". "))
        .or_else(|| ends_after(" "))
        .unwrap_or(start + period);
    while !text.is_char_boundary(end) {
        end += 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_written_over_and_over_is_a_loop() {
        let mut text = "The function is defined in rag_common.py. ".to_string();
        let unit = "It is imported by ingest.py and query.py. ";
        text.push_str(&unit.repeat(5));
        let (period, _) = looping_tail(&text).unwrap();
        assert_eq!(period, unit.len());
        assert!(cut_loop(&mut text));
        // One copy, ended after a sentence.
        assert_eq!(
            text,
            "The function is defined in rag_common.py. It is imported by ingest.py and query.py. "
        );
    }

    #[test]
    fn a_loop_is_seen_whatever_the_phase_of_the_stream() {
        let unit = "- `ingest.py` imports it\n";
        let text = format!("Answer:\n{}- `ing", unit.repeat(4));
        assert!(looping_tail(&text).is_some());
        let mut cut = text.clone();
        cut_loop(&mut cut);
        assert_eq!(cut, format!("Answer:\n{unit}"));
        // Streamed in 7-byte pieces, the guard trips within two copies of the fourth.
        let mut guard = RepetitionGuard::default();
        let endless = format!("Answer:\n{}", unit.repeat(50));
        let tripped_at = endless
            .as_bytes()
            .chunks(7)
            .position(|c| guard.feed(std::str::from_utf8(c).unwrap()))
            .expect("never tripped");
        assert!((tripped_at + 1) * 7 <= 8 + 6 * unit.len(), "{tripped_at}");
    }

    #[test]
    fn ordinary_answers_rules_tables_and_code_are_not_loops() {
        let cases = [
            "`get_collection_name` is defined in rag_common.py:4-5. It is imported by ingest.py:1 and query.py:1; util.py does not import it.",
            "| file | line |\n| --- | --- |\n| ingest.py | 1 |\n| query.py | 1 |\n",
            "--------------------------------------------------------------------------------\n",
            "================================================================================",
            "values = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
            "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n",
            "abcdefghabcdefghabcdefghabcdefgh",
        ];
        for text in cases {
            assert_eq!(looping_tail(text), None, "{text:?}");
            let mut guard = RepetitionGuard::default();
            assert!(
                !text
                    .as_bytes()
                    .chunks(5)
                    .any(|c| guard.feed(std::str::from_utf8(c).unwrap())),
                "{text:?}"
            );
        }
    }

    #[test]
    fn long_runs_and_hostile_periods_are_not_loops_and_stay_cheap() {
        let mut guard = RepetitionGuard::default();
        let piece = "x".repeat(1024);
        assert!(
            !(0..1024).any(|_| guard.feed(&piece)),
            "one byte is not a unit"
        );
        // A period over MAX_PERIOD, mostly one byte: never a loop, and the
        // guard stops watching after WATCHED_BYTES.
        let mut guard = RepetitionGuard::default();
        let unit = format!("{}abc\n", "x".repeat(600));
        assert!(!(0..2000).any(|_| guard.feed(&unit)));
        assert_eq!(guard.seen, WATCHED_BYTES);
    }

    #[test]
    fn multibyte_text_is_cut_on_a_character_boundary() {
        let mut text = format!("前言。{}", "函数在这里定义，被两个文件导入。".repeat(4));
        assert!(cut_loop(&mut text));
        assert_eq!(text, "前言。函数在这里定义，被两个文件导入");
    }
}
