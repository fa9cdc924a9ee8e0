//! One page of a definition's direct callers, read file by file: the count
//! of every site comes from the covering index, and only the files the page
//! falls in are read. The order is [`Index::callers`]' own (each target in
//! turn, then path, line and call), so a page is the same slice of the
//! whole list that the full walk gives (`callers_pages` tests it).

use super::query::{call_site, Names, Node, Page};
use crate::error::Result;
use crate::evidence::Evidence;
use crate::query::Index;
use crate::store::graph::{self as rows, Target};

/// A page of the sites that call `targets` directly, and how many there are.
pub(super) struct FirstLevel {
    pub sites: Vec<Evidence>,
    pub total: usize,
}

impl Index {
    /// The direct callers' page: per target, its count; for the targets the
    /// page reaches, the files that call it by path with their counts, and
    /// the calls of the files that overlap `page` only.
    pub(super) fn first_level_page(&self, targets: &[Target], page: Page) -> Result<FirstLevel> {
        let conn = self.connection();
        let mut names = Names::new(conn);
        let mut reader = self.reader();
        let mut out = FirstLevel {
            sites: Vec::new(),
            total: 0,
        };
        for target in targets {
            // A target the page does not reach is only counted.
            let start = out.total;
            out.total += rows::incoming_count(conn, target.id)?;
            if !overlaps(page, start, out.total) {
                continue;
            }
            let mut end = start;
            for (_, file, count) in rows::incoming_files(conn, target.id)? {
                let first = end;
                end += count;
                if !overlaps(page, first, end) {
                    continue;
                }
                for (i, call) in rows::incoming_in_file(conn, target.id, file)?
                    .into_iter()
                    .enumerate()
                {
                    if !page.contains(first + i) {
                        continue;
                    }
                    let chain = [
                        Node::caller(call.enclosing, file),
                        Node::Definition(target.id),
                    ];
                    let at = (file, call.line, call.call);
                    let site = call_site(&mut names, &mut reader, at, 1, &chain, &call.confidence)?;
                    out.sites.push(site);
                }
            }
        }
        Ok(out)
    }
}

/// Whether items `start..end` hold one of the page's.
fn overlaps(page: Page, start: usize, end: usize) -> bool {
    start < page.offset.saturating_add(page.limit) && end > page.offset
}
