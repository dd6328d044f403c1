public import BodySystem

/// The GPIO chips in a device directory, each once. Raspberry Pi OS's udev
/// rule links /dev/gpiochip4 to the header's chip, and a kernel may renumber
/// chips: a chip is the character device it is (its `st_rdev`), whatever
/// paths lead to it.
public enum GpioChipNodes {
    /// Every `gpiochipN` entry of `directory`, as the file system says, in number order.
    public static func scan(_ directory: String) -> [DeviceNode] {
        let names = (try? DeviceNode.names(in: directory)) ?? []
        return names.compactMap { name in number(name).map { _ in DeviceNode.at("\(directory)/\(name)") } }
            .sorted { order($0) < order($1) }
    }

    /// One node per character device, in number order: of several paths to one
    /// device, the real node before a link, then the lower number. A path that
    /// is no character device stays, so the search can say so.
    public static func unique(_ nodes: [DeviceNode]) -> [DeviceNode] {
        var kept: [UInt64: DeviceNode] = [:]
        var others: [DeviceNode] = []
        for node in nodes {
            guard let device = node.device else { others.append(node); continue }
            if let seen = kept[device], (seen.isLink ? 1 : 0, order(seen)) <= (node.isLink ? 1 : 0, order(node)) { continue }
            kept[device] = node
        }
        return (Array(kept.values) + others).sorted { order($0) < order($1) }
    }

    /// N of "gpiochipN"; nil for any other name.
    static func number(_ name: Substring) -> Int? {
        name.hasPrefix("gpiochip") ? Int(name.dropFirst(8)) : nil
    }
    static func number(_ name: String) -> Int? { number(Substring(name)) }

    private static func order(_ node: DeviceNode) -> Int {
        number(node.path.split(separator: "/").last ?? "") ?? .max
    }
}
