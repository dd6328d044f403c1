import BodyCore

/// The first press's first-use costs paid at start, so a person's first press does not pay them: a two-press of
/// each wired button through a copy of the rules (`Body.rehearsal`), counted,
/// answered and shown as a real one would be, into copies and scratch buffers
/// the body never shows or sends. The metadata and one-time tables Swift makes
/// on that path are made here, once a process.
extension Agent {
    func rehearsePresses(at now: Moment) {
        // A press's turn logs a line: the list's first storage made now (28k instructions of the first press).
        turnLog.reserveCapacity(8)
        guard let board = lines.board else { return }
        var counts = metrics  // a copy: the real counters never see a rehearsal
        var written = 0
        for role in board.buttons {
            let (rehearsed, actions) = body.rehearsal(of: role, at: now)
            var copy = rehearsed
            for action in actions { counts.count(action) }
            let items = copy.poll(after: 0, at: now)
            counts.taken(items, at: now.mono)
            var out = JSONOut()
            EarsAnswer(boot: boot, items: items, next: copy.outbox.next).write(to: &out)
            written += out.bytes.count
            let shown = copy.outlook(at: now).indicators
            for output in board.outputs where shown.level(output, at: now.mono + Body.rehearsalGap) { written += 1 }
            out = JSONOut()
            copy.writeStatus(at: now, statusExtras(at: now), to: &out)
            written += out.bytes.count
        }
        // Kept where it can be read, so none of the above is optimised away as unused.
        rehearsed = (presses: Int(counts.presses.values.reduce(0, +)), bytes: written)
    }
}
