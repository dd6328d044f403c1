import Testing
@testable import BodyHTTP

@Suite("server-sent events, as bytes (issue 20)")
struct EventStreamTests {
    @Test("an event: its name, its id, its data line and the blank line that ends it")
    func one() {
        let bytes = EventStream.event("page", id: 7, data: Array(#"{"a":1}"#.utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == "event: page\nid: 7\ndata: {\"a\":1}\n\n")
    }

    @Test("a line break in the data starts another data line, whichever break it is", arguments: [
        ("a\nb", "data: a\ndata: b\n"), ("a\r\nb", "data: a\ndata: b\n"), ("a\rb", "data: a\ndata: b\n"),
        ("a\n\nb", "data: a\ndata: \ndata: b\n"), ("", "data: \n"), ("a\n", "data: a\ndata: \n"),
    ])
    func breaks(data: String, lines: String) {
        let bytes = EventStream.event("x", data: Array(data.utf8))
        #expect(String(decoding: bytes, as: UTF8.self) == "event: x\n" + lines + "\n")
    }

    @Test("a name cannot break out of its line")
    func name() {
        let text = String(decoding: EventStream.event("a\nb\rc", data: []), as: UTF8.self)
        #expect(text.hasPrefix("event: abc\n"))
    }

    @Test("the reconnection delay")
    func retry() {
        #expect(String(decoding: EventStream.opening(retryMillis: 2000), as: UTF8.self) == "retry: 2000\n\n")
    }
}

@Suite("the session cookie and the sign-in form (issue 20)")
struct SessionCookieTests {
    @Test("our cookie among others", arguments: [
        ("studio-body-session=abc", "abc"), ("a=1; studio-body-session=abc; b=2", "abc"),
        ("a=1;studio-body-session=\"abc\"", "abc"), ("x-studio-body-session=abc", nil),
        ("studio-body-session=", nil), ("studio-body-session", nil), ("", nil),
    ] as [(String, String?)])
    func read(header: String, value: String?) {
        #expect(SessionCookie.value(in: header) == value)
    }

    @Test("no header, no cookie")
    func none() { #expect(SessionCookie.value(in: nil) == nil) }

    @Test("given HttpOnly, SameSite=Strict, on the whole page, for its lifetime; ended at once")
    func setCookie() {
        #expect(SessionCookie.give("abc", seconds: 43200) ==
                ("Set-Cookie", "studio-body-session=abc; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200"))
        #expect(SessionCookie.end == ("Set-Cookie", "studio-body-session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"))
    }

    @Test("a form's fields, decoded", arguments: [
        ("token=abc", ["token": "abc"]), ("token=a+b%2Fc%3d", ["token": "a b/c="]),
        ("x=1&token=t&token=second", ["x": "1", "token": "t"]), ("token", ["token": ""]),
        ("token=%zz%4", ["token": "%zz%4"]), ("", [:]), ("=v", ["": "v"]),
    ])
    func form(body: String, fields: [String: String]) {
        #expect(FormBody.parse(Array(body.utf8)) == fields)
    }
}
