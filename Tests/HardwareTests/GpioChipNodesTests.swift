import BodyHardware
import BodySystem
import Foundation
import Testing

// No hardware: the nodes are values, or links to /dev/null and /dev/zero
// (character devices every Linux has). These run everywhere.
@Suite("GPIO chips are found once each, by the device they are")
struct GpioChipNodesTests {
    static func node(_ name: String, _ device: UInt64?, link: Bool = false) -> DeviceNode {
        DeviceNode(path: "/dev/\(name)", device: device, isLink: link)
    }

    @Test("Raspberry Pi OS's /dev/gpiochip4 link to gpiochip0 is the same chip, found once by its node")
    func piLink() {
        let nodes = [Self.node("gpiochip0", 0xfe00), Self.node("gpiochip4", 0xfe00, link: true)]
        #expect(GpioChipNodes.unique(nodes) == [Self.node("gpiochip0", 0xfe00)])
        #expect(GpioChipNodes.unique(nodes.reversed()) == [Self.node("gpiochip0", 0xfe00)])
    }

    @Test("a Pi 5 whose header chip is gpiochip13, linked as gpiochip4: the chip once, by its own node")
    func renumbered() {
        let nodes = [Self.node("gpiochip0", 0xfe00), Self.node("gpiochip4", 0xfe0d, link: true),
                     Self.node("gpiochip10", 0xfe0a), Self.node("gpiochip13", 0xfe0d)]
        #expect(GpioChipNodes.unique(nodes).map(\.path) == ["/dev/gpiochip0", "/dev/gpiochip10", "/dev/gpiochip13"])
    }

    @Test("two different chips both stay, so a name on both is still refused")
    func twoChips() {
        let nodes = [Self.node("gpiochip0", 0xfe00), Self.node("gpiochip1", 0xfe01)]
        #expect(GpioChipNodes.unique(nodes) == nodes)
    }

    @Test("only links to one device: the lower number is kept")
    func onlyLinks() {
        let nodes = [Self.node("gpiochip7", 0xfe00, link: true), Self.node("gpiochip4", 0xfe00, link: true)]
        #expect(GpioChipNodes.unique(nodes).map(\.path) == ["/dev/gpiochip4"])
    }

    @Test("a path that is no character device stays, so the search can say so")
    func notADevice() {
        let nodes = [Self.node("gpiochip0", nil), Self.node("gpiochip4", nil, link: true)]
        #expect(GpioChipNodes.unique(nodes) == nodes)
    }

    @Test("in a real directory: links to one device are one chip, another device is another, a file and a dangling link are no devices")
    func scan() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-body-chips-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: "\(dir)/gpiochip0", withDestinationPath: "/dev/null")
        try fm.createSymbolicLink(atPath: "\(dir)/gpiochip4", withDestinationPath: "gpiochip0")
        try fm.createSymbolicLink(atPath: "\(dir)/gpiochip12", withDestinationPath: "/dev/zero")
        try fm.createSymbolicLink(atPath: "\(dir)/gpiochip5", withDestinationPath: "gone")
        fm.createFile(atPath: "\(dir)/gpiochip2", contents: Data())
        fm.createFile(atPath: "\(dir)/gpiochipX", contents: Data())
        fm.createFile(atPath: "\(dir)/video0", contents: Data())

        let scanned = GpioChipNodes.scan(dir)
        #expect(scanned.map(\.path) == [0, 2, 4, 5, 12].map { "\(dir)/gpiochip\($0)" })
        let null = DeviceNode.at("/dev/null")
        #expect(null.device != nil && null.number == "1:3")
        #expect(scanned[0].device == null.device && scanned[2].device == null.device && scanned[2].isLink)
        #expect(scanned[1].device == nil && scanned[3].device == nil)
        #expect(scanned[4].device == DeviceNode.at("/dev/zero").device)

        // Every path here is a link: the lower number stands for /dev/null.
        #expect(GpioChipNodes.unique(scanned).map(\.path) == [0, 2, 5, 12].map { "\(dir)/gpiochip\($0)" })
    }

    @Test("a directory that cannot be read has no chips")
    func missingDirectory() {
        #expect(GpioChipNodes.scan("/nonexistent-studio-body").isEmpty)
        #expect(throws: Errno.noSuchFileOrDirectory) { try DeviceNode.names(in: "/nonexistent-studio-body") }
    }
}
