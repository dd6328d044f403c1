import Foundation
import Testing
@testable import BodyCore
import BodyTestSupport

/// nst/JSONTestSuite's parsing cases (Tests/Vectors/JSONTestSuite), each read
/// the way `POST /face` reads a push: `JSONBytes.parse`, then `Body.push`. Every
/// `n_` file must be refused, alone and as a value inside a push; every `y_`
/// file taken. The `i_` files are the implementation's choice: what this one
/// does is in the directory's README, and only its words are checked here.
@Suite("JSONParser against nst/JSONTestSuite")
struct JSONTestSuiteTests {
    static let directory = "Tests/Vectors/JSONTestSuite/test_parsing"

    /// The suite's files whose names start with `prefix`, sorted.
    static func files(_ prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Repository.url(directory).path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Repository.url("\(directory)/\(name)")))
    }

    /// What `POST /face` makes of these bytes: the push's answer, or the words of its 400.
    static func face(_ bytes: [UInt8]) -> Result<JSON, JSONParseError> {
        let pushed: JSONBytes
        do { pushed = try JSONBytes.parse(bytes) } catch { return .failure(error) }
        var body = studio()
        do { _ = try body.push(pushed, at: Moment(101)) } catch {
            return .failure(JSONParseError(reason: error.description))
        }
        return .success(pushed.json)
    }

    /// The bytes as the value of `onair` in a push: a value inside one.
    static func inside(_ bytes: [UInt8]) -> [UInt8] {
        Array(#"{"onair":"#.utf8) + bytes + Array("}".utf8)
    }

    /// A refusal's words are the parser's own: they follow "… is not valid JSON: ".
    static func inWords(_ error: JSONParseError) -> Bool {
        !error.reason.isEmpty && !error.reason.hasPrefix("not valid JSON")
            && (error.reason.contains(" at byte ") || error.reason == "it is empty" || error.reason == "it is not UTF-8 text")
    }

    @Test("the whole suite is here: 188 must-refuse, 95 must-take, 35 the implementation's choice")
    func counts() {
        #expect(Self.files("n_").count == 188)
        #expect(Self.files("y_").count == 95)
        #expect(Self.files("i_").count == 35)
    }

    @Test("every must-refuse file is refused in words, alone and inside a push", arguments: files("n_"))
    func refused(name: String) throws {
        let bytes = try Self.bytes(name)
        for (what, text) in [("alone", bytes), ("inside a push", Self.inside(bytes))] {
            do {
                let value = try JSON.parse(text)
                Issue.record("\(name) \(what) was taken: \(value)")
            } catch {
                #expect(Self.inWords(error), "\(name) \(what): \(error.reason)")
            }
        }
    }

    @Test("every must-take file is taken: an object is pushed, anything else refused as not an object",
          arguments: files("y_"))
    func taken(name: String) throws {
        let bytes = try Self.bytes(name)
        let value = try JSON.parse(bytes)
        switch Self.face(bytes) {
        case .success: #expect(value.object != nil, "\(name) pushed but is not an object")
        case .failure(let error):
            #expect(value.object == nil, "\(name) refused: \(error.reason)")
            #expect(error.reason.hasPrefix("the push is not a JSON object"), "\(name): \(error.reason)")
        }
        // Inside a push, a value of any kind is lenient: the wrong type is absent.
        #expect(throws: Never.self, "\(name) inside a push") { try Self.face(Self.inside(bytes)).get() }
    }

    @Test("an implementation-defined file is taken, or refused in words", arguments: files("i_"))
    func implementationDefined(name: String) throws {
        let bytes = try Self.bytes(name)
        if case .failure(let error) = Result(catching: { () throws(JSONParseError) in try JSON.parse(bytes) }) {
            #expect(Self.inWords(error), "\(name): \(error.reason)")
        }
    }
}
