import Testing
@testable import BodyConfig

@Suite("INI: sections of key = value lines, each entry knowing its line")
struct INITests {
    @Test("sections and entries keep their names, values and line numbers")
    func sections() throws {
        let ini = try INI.parse("# a comment\n[body]\nname = studio\n\n[oriel]\nurl=http://o:1\n", file: "f")
        #expect(ini.file == "f")
        #expect(ini.sections.map(\.name) == ["body", "oriel"])
        #expect(ini.sections.map(\.line) == [2, 5])
        #expect(ini.section("body")?.value("name") == INI.Entry(key: "name", value: "studio", line: 3))
        #expect(ini.section("oriel")?.value("url")?.value == "http://o:1")
        #expect(ini.section("camera") == nil)
        #expect(ini.section("body")?.value("listen") == nil)
    }

    @Test("comments and blanks are not values", arguments: [
        ("# whole line", nil),
        ("; whole line", nil),
        ("   # indented", nil),
        ("k = v # after a space", "v"),
        ("k = v\t# after a tab", "v"),
        ("k = a#b", "a#b"),
        ("k = v ; still the value", "v ; still the value"),
        ("  k  =  v  ", "v"),
        ("k = v\r", "v"),
        ("k =", ""),
        ("k = a = b", "a = b"),
    ] as [(String, String?)])
    func comments(line: String, value: String?) throws {
        let ini = try INI.parse("[s]\n\(line)\n", file: "f")
        #expect(ini.section("s")?.value("k")?.value == value)
    }

    @Test("a file written with CRLF line ends reads like one with LF")
    func crlf() throws {
        let ini = try INI.parse("[body]\r\nname = studio\r\n\r\n[board]\r\nfile = sim\r\n", file: "f")
        #expect(ini.sections.map(\.name) == ["body", "board"])
        #expect(ini.section("body")?.value("name")?.value == "studio")
        #expect(ini.section("board")?.value("file") == INI.Entry(key: "file", value: "sim", line: 5))
    }

    @Test("a section name's spaces are trimmed and folded", arguments: ["[button onair]", "[ button   onair ]", "[button onair]  # the On Air button"])
    func sectionName(header: String) throws {
        #expect(try INI.parse("\(header)\n", file: "f").sections.map(\.name) == ["button onair"])
    }

    @Test("every mistake names the file and the line", arguments: [
        ("[body\n", "f:1: a section header must end with ]: [body"),
        ("\n[ ]\n", "f:2: an empty section name []"),
        ("[a]\n[b]\n[ a ]\n", "f:3: section [a] appears twice"),
        ("[a]\njust words\n", "f:2: expected key = value, found: just words"),
        ("[a]\n = v\n", "f:2: a value with no key: = v"),
        ("k = v\n", "f:1: k is outside any [section]"),
        ("[a]\nk = 1\nk = 2\n", "f:3: k is set twice in [a]"),
    ])
    func mistakes(text: String, words: String) {
        #expect(refusal { () throws(ConfigError) in _ = try INI.parse(text, file: "f") } == words)
    }

    @Test("an error without a line says only the file")
    func errorWithoutLine() {
        #expect(ConfigError(file: "f", line: nil, "words").description == "f: words")
        #expect(ConfigError(file: "f", line: 7, "words").description == "f:7: words")
    }
}
