/// The output lines a body drives, by the names board files and `/status` use.
public enum OutputRole: String, CaseIterable, Sendable, Codable, Comparable {
    /// The red On Air lamp (an LED, or a relay/MOSFET driving a studio lamp).
    case lamp
    /// The amber LED: armed, asking, a problem.
    case armedLED = "armed-led"
    /// Optional red LED: lit while any eye in the house is open.
    case eyeLED = "eye-led"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Every role, sorted by name (the status document's order), made once:
    /// the loop goes through them at every turn without building an array.
    public static let inNameOrder: [OutputRole] = allCases.sorted()
}

/// The buttons a body reads, by the names board files, `/status` and `/sim/press` use.
public enum ButtonRole: String, CaseIterable, Sendable, Codable, Comparable {
    case onair, wrapup, kill, camera

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Every button, sorted by name (the order the body goes through them and
    /// the status document's), made once: no array a turn.
    public static let inNameOrder: [ButtonRole] = allCases.sorted()
}

/// One edge on a button's line, already translated through the line's
/// `active` setting: `pressed` is true when the button went down.
/// `at` is seconds on CLOCK_MONOTONIC, from the kernel's event timestamp.
public struct ButtonEdge: Equatable, Sendable {
    public var button: ButtonRole
    public var pressed: Bool
    public var at: Double

    public init(button: ButtonRole, pressed: Bool, at: Double) {
        self.button = button
        self.pressed = pressed
        self.at = at
    }
}

/// A role kind a `RoleTable` is indexed by: each case's place in a fixed array.
public protocol TableRole: CaseIterable, Hashable, Sendable {
    /// 0 up to `RoleTable.capacity`: the case's place among its cases.
    var slot: Int { get }
}

extension OutputRole: TableRole {
    @inlinable public var slot: Int {
        switch self {
        case .lamp: 0
        case .armedLED: 1
        case .eyeLED: 2
        }
    }

    // By the case, not its name: a raw-value enum otherwise hashes and compares
    // its `rawValue` string, at every lookup of a table keyed by the role.
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.slot == b.slot }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(slot) }
}

extension ButtonRole: TableRole {
    @inlinable public var slot: Int {
        switch self {
        case .onair: 0
        case .wrapup: 1
        case .kill: 2
        case .camera: 3
        }
    }

    // By the case, not its name (as OutputRole's).
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.slot == b.slot }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(slot) }
}

/// At most one value a role, kept in a fixed inline array indexed by the
/// role (`slot`): no hashing and no heap storage, so what the status
/// document says of each line and button is had at every request without
/// allocating (a dictionary there would be five allocations a request).
/// Inlinable: the agent fills two at every request, and a generic call from
/// another module, unspecialised, looks up the type's metadata each time.
public struct RoleTable<Role: TableRole, Value> {
    /// Room for the largest role kind (ButtonRole's four).
    public static var capacity: Int { 4 }

    // Set in each init, not here: an initial value is a generic function of its own, called unspecialised.
    @usableFromInline var slots: InlineArray<4, Value?>

    @inlinable public init() { slots = InlineArray(repeating: nil) }

    public init(_ values: [Role: Value]) {
        slots = InlineArray(repeating: nil)
        for (role, value) in values { slots[role.slot] = value }
    }

    @inlinable public subscript(role: Role) -> Value? {
        get { slots[role.slot] }
        set { slots[role.slot] = newValue }
    }

    /// Whether no role holds a value.
    public var isEmpty: Bool { count == 0 }

    /// Each value held, in the roles' order (`slot`).
    @inlinable public func forEachValue(_ body: (Value) -> Void) {
        for i in slots.indices { if let value = slots[i] { body(value) } }
    }

    /// How many roles hold a value.
    public var count: Int {
        var n = 0
        for i in slots.indices where slots[i] != nil { n += 1 }
        return n
    }

    /// Whether every role in `other`'s places holds a value here and the two say the same.
    public func elementsEqual(_ other: RoleTable, by same: (Value, Value) -> Bool) -> Bool {
        for i in slots.indices {
            switch (slots[i], other.slots[i]) {
            case (nil, nil): continue
            case (let a?, let b?): if !same(a, b) { return false }
            default: return false
            }
        }
        return true
    }
}

extension RoleTable: Sendable where Value: Sendable {}

extension RoleTable: Equatable where Value: Equatable {
    public static func == (a: RoleTable, b: RoleTable) -> Bool { a.elementsEqual(b, by: ==) }
}

extension RoleTable: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (Role, Value)...) {
        slots = InlineArray(repeating: nil)
        for (role, value) in elements { slots[role.slot] = value }
    }
}
