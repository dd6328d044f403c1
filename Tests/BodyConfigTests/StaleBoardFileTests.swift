import Testing
@testable import BodyConfig

// Moving from `make install` to the package keeps body.conf, whose board file
// `make uninstall` deleted from /usr/local/share.
@Suite("A board file under /usr/local/share that is gone")
struct StaleBoardFileTests {
    let local = "/usr/local/share/studio-body/board/raspberrypi.conf"
    let packaged = "/usr/share/studio-body/board/raspberrypi.conf"

    func config(_ file: String) throws -> BodyConfig {
        try BodyConfig.parse("[body]\nname = studio\n[board]\nfile = \(file)\n", file: "/etc/studio-body/body.conf")
    }

    @Test("gone, with the package's copy there: names the line and the file to use")
    func packageCopy() throws {
        let error = StaleBoardFile.check(try config(local)) { $0 == packaged }
        #expect(error?.description == "/etc/studio-body/body.conf:4: [board] file \(local) does not exist (make uninstall removes /usr/local/share/studio-body): set `file = \(packaged)` (the package's copy)")
    }

    @Test("gone, and no package either: says to copy a board file to /etc")
    func noCopy() throws {
        let error = StaleBoardFile.check(try config(local)) { _ in false }
        #expect(error?.words.hasSuffix("copy a board file to /etc/studio-body/board.conf and set `file = /etc/studio-body/board.conf`") == true)
    }

    @Test("there, elsewhere, or the sim board: nothing to say", arguments: [
        ("/usr/local/share/studio-body/board/raspberrypi.conf", true),
        ("/usr/share/studio-body/board/raspberrypi.conf", false),
        ("/etc/studio-body/board.conf", false),
        ("sim", false),
    ])
    func nothing(file: String, exists: Bool) throws {
        #expect(StaleBoardFile.check(try config(file)) { _ in exists } == nil)
    }
}
