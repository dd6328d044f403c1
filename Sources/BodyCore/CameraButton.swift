/// The camera button (DESIGN 3): one press, no arming and no asking state. A
/// press asks for the opposite of what Oriel says about this body's eyes and,
/// when it asks to open, marks the body as having asked (rule 7); an ask to
/// close never starts the camera. Its press is a question asked now too
/// (rule 6): the item is withdrawn quietly once `EyesGate.askCounts` passes.
public struct CameraButton: Equatable, Sendable {
    /// The camera this body's button names.
    public let camera: String
    /// Camera items in the outbox by id, with when they were asked.
    public private(set) var asks: [String: Double] = [:]

    public init(camera: String) {
        self.camera = camera
    }
}

extension CameraButton: Control {
    var role: ButtonRole { .camera }

    /// One press, no arming: the arming of a two-press neighbour is left alone.
    mutating func tap(_ world: World, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                      id: @autoclosure () -> String, by: String) -> PressOutcome {
        .asked(Request(kind: "eyes", id: id(), fields: [
            "open": .bool(!world.eyes.open), "camera": .string(camera), "by": .string(by)]))
    }

    /// Only a queued ask counts, and only an ask to open.
    mutating func queued(_ request: Request, in world: World, at now: Moment, gate: inout EyesGate) {
        asks[request.id] = now.mono
        if !world.eyes.open { gate.asked(at: now) }
    }

    /// A press that could not be queued says so in the log; the camera shows no problem.
    mutating func fail(_ words: String, at now: Moment) {}

    func disarms(from old: World, to new: World) -> Bool { false }

    mutating func hear(_ news: News, in world: World, at now: Moment) {}

    mutating func ranOut(at now: Moment) -> [RanOut] {
        guard !asks.isEmpty else { return [] }  // most turns: no filtered copy
        let due = asks.filter { now.mono - $0.value >= EyesGate.askCounts }.keys.sorted()
        for id in due { asks[id] = nil }
        return due.map { RanOut(id: $0, said: nil) }
    }

    var nextDue: Double? { asks.values.min().map { $0 + EyesGate.askCounts } }

    var shown: Asking? { nil }
}
