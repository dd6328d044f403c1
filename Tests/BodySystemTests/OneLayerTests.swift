import Testing
import Foundation
import BodyTestSupport

/// docs/shape.md: every system call goes through BodySystem. A file that
/// imports the C library (or Foundation, which brings it along) anywhere else
/// is a system call outside the one layer, or soon one.
@Suite("One layer for system calls")
struct OneLayerTests {
    @Test("no source file outside BodySystem and the C modules imports Glibc or Foundation")
    func onlyBodySystemImportsGlibc() throws {
        let sources = Repository.url("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
            .filter { $0 != "BodySystem" && !$0.hasPrefix("C") }
        #expect(modules.contains("BodyAgent") && modules.contains("http-bench"), "the walk finds the modules")
        var offenders: [String] = []
        for module in modules {
            let dir = sources.appendingPathComponent(module)
            guard let walk = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in walk where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    if let i = words.firstIndex(of: "import"), i + 1 < words.count, i <= 2,
                       ["Glibc", "Foundation", "Musl", "Darwin"].contains(words[i + 1]) {
                        offenders.append("Sources/\(module)/\(file): \(line)")
                    }
                }
            }
        }
        #expect(offenders == [])
    }
}
