/// A two-press played through a copy of the rules, never shown and never sent
/// Swift makes a generic type's metadata from its mangled name, and
/// runs a one-time table's initializer, the first time code needs them: the
/// first press after a start would pay ~227k instructions for that (0.3 ms natively,
/// 3-18 ms under TCG, the tail of the VM's press -> `/ears`). A copy pays them
/// at start instead, where nobody is waiting for a lamp.
extension Body {
    /// The gap between the rehearsal's two presses: past the settle, well inside the arming.
    public static let rehearsalGap = House.settle + 0.1

    /// A copy of this body, On Air on in LIVE (where every button arms and
    /// asks; at start On Air is unread and most would only be refused), after
    /// `button` was pressed twice from rest: the edges, each bounce window's
    /// reading, a tick of the asking blink. Returns the copy and every action
    /// it brought about; `self` is untouched. The times are `now` and after;
    /// the ids are "rehearsal".
    public func rehearsal(of button: ButtonRole, at now: Moment) -> (body: Body, actions: [BodyAction]) {
        var copy = self
        var actions: [BodyAction] = []
        let ids = { "rehearsal" }
        copy.adopt(OnAirState(on: true, stage: .live), at: now)
        let debounce = copy.contacts[button]?.debounce ?? Contact.defaultDebounce
        copy.wire(button, debounce: debounce, down: false, at: now.mono)
        for down in [0, Self.rehearsalGap] {
            for (offset, pressed) in [(down, true), (down + 0.1, false)] {
                let at = now.after(offset)
                copy.edge(ButtonEdge(button: button, pressed: pressed, at: at.mono), at: at, ids: ids, into: &actions)
                // The window's end, reckoned from the edge's own stamp (the contact's
                // sum, to the bit): the tick asks for the line, the reading settles it.
                let end = at.after(debounce)
                copy.tick(at: end, ids: ids, into: &actions)
                copy.level(button, pressed: pressed, at: end, ids: ids, into: &actions)
            }
        }
        copy.tick(at: now.after(Self.rehearsalGap + 0.2), ids: ids, into: &actions)
        return (copy, actions)
    }
}
