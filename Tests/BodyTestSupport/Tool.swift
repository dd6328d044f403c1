import Foundation

/// A command-line tool's exit status and its standard output and error
/// together, its standard input empty (a TLS client then ends after the
/// handshake). A tool that is not installed is an error in words, naming the
/// package that brings it (scripts/apt-packages.txt).
public func runTool(_ path: String, _ arguments: [String], package: String) throws -> (code: Int32, out: String) {
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw ToolMissing(words: "\(path) is not installed: apt-get install \(package) (scripts/apt-packages.txt)")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let end = p.waitForExit()
    return (end.code, String(decoding: o, as: UTF8.self))
}

public struct ToolMissing: Error, CustomStringConvertible {
    public var words: String
    public var description: String { words }
}
