import Foundation
import Glibc
import Testing
import BodyTestSupport
import BodyHub

/// The body's page (issue 20) against the real binary: signing in with the
/// token in a form (never a URL), the session cookie, a wrong token refused in
/// words, signing out, and `/events` carrying a push's change without a reload.
/// Over HTTPS, pinned: the bytes of each exchange go through BodyHub's
/// HubStream (libcurl connected only, the body's certificate the only authority, its key pinned).
@Suite("the page: sign-in and live events")
struct PageTests {
    @Test("a stranger at / gets the sign-in form, which posts the token in its body")
    func signInForm() async throws {
        let body = try await BodyProcess.start()
        let a = try await Raw.exchange(body, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(a.status == 200)
        #expect(a.text.contains(#"<form id="signin" method="post" action="/signin""#))
        #expect(a.text.contains(#"type="password""#))
        #expect(!a.text.contains(body.token))
        #expect(!a.text.contains("EventSource"), "the page itself is not shown to a stranger")
    }

    @Test("the right token gives a session cookie (HttpOnly, SameSite=Strict, Path=/, 12 h); the page and /events follow it")
    func signIn() async throws {
        let body = try await BodyProcess.start()
        let a = try await Raw.signIn(body, token: body.token)
        #expect(a.status == 303)
        #expect(a.header("location") == "/")
        let cookie = try #require(a.header("set-cookie"))
        #expect(cookie.range(of: #"^studio-body-session=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200$"#,
                             options: .regularExpression) != nil, "\(cookie)")
        #expect(!cookie.contains(body.token))
        let session = String(cookie.split(separator: ";")[0])
        let page = try await Raw.exchange(body, "GET / HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nConnection: close\r\n\r\n")
        #expect(page.status == 200)
        #expect(page.text.contains("new EventSource(\"/events\")"))
        #expect(!page.text.contains(body.token))
        // The session reads /status as the token does, but never stands in for it on Oriel's routes.
        let status = try await Raw.exchange(body, "GET /status HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nConnection: close\r\n\r\n")
        #expect(status.status == 200)
        let face = try await Raw.exchange(body,
            "POST /face HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        #expect(face.status == 401)
        #expect(!body.log.contains(body.token), "the token is never in the log")
    }

    @Test("a wrong token is refused in words, 401, and a flood of them is at most one log line a minute")
    func wrongToken() async throws {
        let body = try await BodyProcess.start()
        for i in 0..<30 {
            let a = try await Raw.signIn(body, token: "wrong-token-\(i)-0123456789")
            #expect(a.status == 401)
            #expect(a.header("set-cookie") == nil)
            #expect(a.text.contains("That is not this body&#39;s token: nothing was signed in."))
            #expect(!a.text.contains("wrong-token-\(i)"), "the page does not echo what was typed")
        }
        let empty = try await Raw.signIn(body, token: "")
        #expect(empty.status == 401)
        #expect(empty.text.contains("No token was given"))
        await pause(0.2)
        let lines = body.log.split(separator: "\n").filter { $0.contains("/signin") }
        #expect(lines.count == 1, "\(lines)")
        #expect(!body.log.contains("wrong-token-"))
    }

    @Test("signing out ends the session: the cookie is cleared and no longer opens the page or /events")
    func signOut() async throws {
        let body = try await BodyProcess.start()
        let session = try await Raw.session(body, token: body.token)
        let out = try await Raw.exchange(body, "POST /signout HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(out.status == 303)
        #expect(out.header("set-cookie") == "studio-body-session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
        let page = try await Raw.exchange(body, "GET / HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nConnection: close\r\n\r\n")
        #expect(page.text.contains(#"action="/signin""#))
        let events = try await Raw.exchange(body, "GET /events HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\nConnection: close\r\n\r\n")
        #expect(events.status == 401)
    }

    @Test("/sim is kept as a redirect to the page")
    func simRedirect() async throws {
        let body = try await BodyProcess.start()
        let a = try await Raw.exchange(body, "GET /sim HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(a.status == 303)
        #expect(a.header("location") == "/")
    }

    @Test("/events gives the facts at once, then a push's change on the same stream, without a reload")
    func eventsCarryAChange() async throws {
        let body = try await BodyProcess.start()
        let session = try await Raw.session(body, token: body.token)
        let stream = try Raw(body)
        defer { stream.close() }
        stream.send("GET /events HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\n\r\n")
        let first = try await stream.read(until: { $0.contains("\n\n") && $0.contains("event: page") }, within: 10)
        #expect(first.contains("Content-Type: text/event-stream"))
        #expect(first.contains("retry: 2000"))
        #expect(first.contains(#""value":"unknown""#))
        try await body.push(#"{"onair":{"on":true,"phase":"live","since":"2026-11-04T17:50:00Z","by":"dad"}}"#)
        let later = try await stream.read(until: { $0.contains(#""value":"on""#) }, within: 5)
        let event = try #require(later.components(separatedBy: "event: page").last)
        #expect(event.contains(#""stage":"LIVE""#))
        #expect(event.contains(#""by":"dad""#))
        #expect(event.contains(#""patterns":{"#))
        #expect(!later.contains(body.token))
    }

    @Test("two watchers get the same event for one change: encoded once, not once per client")
    func oneEncodePerChange() async throws {
        let body = try await BodyProcess.start()
        let session = try await Raw.session(body, token: body.token)
        let streams = try (0..<2).map { _ in try Raw(body) }
        defer { streams.forEach { $0.close() } }
        for s in streams {
            s.send("GET /events HTTP/1.1\r\nHost: x\r\nCookie: \(session)\r\n\r\n")
            _ = try await s.read(until: { $0.contains("event: page") && $0.contains("\n\n") }, within: 10)
        }
        try await body.push(#"{"onair":{"on":true,"phase":"prep"}}"#)
        var ids: [String] = []
        for s in streams {
            let text = try await s.read(until: { $0.contains(#""stage":"PREP""#) }, within: 5)
            let event = try #require(text.components(separatedBy: "event: page\n").last { $0.contains(#""stage":"PREP""#) })
            ids.append(String(event.prefix { $0 != "\n" }))
        }
        #expect(ids.count == 2 && ids[0] == ids[1] && ids[0].hasPrefix("id: "), "\(ids)")
    }

    @Test("/events with the bearer token works as well (a machine watching)")
    func eventsWithToken() async throws {
        let body = try await BodyProcess.start()
        let stream = try Raw(body)
        defer { stream.close() }
        stream.send("GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(body.token)\r\n\r\n")
        let first = try await stream.read(until: { $0.contains("event: page") && $0.contains("\n\n") }, within: 10)
        #expect(first.hasPrefix("HTTP/1.1 200"))
    }
}

/// An HTTP/1.1 client writing and reading the bytes itself, over the body's
/// pinned HTTPS: what the page's tests need (no redirect followed, no cookie
/// kept, a stream read as it comes).
final class Raw: @unchecked Sendable {
    private var stream: HubStream?

    struct Answer {
        var head: String
        var text: String
        var status: Int { Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 }
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    init(_ body: BodyProcess) throws {
        stream = try HubStream.open("https://localhost:\(body.port)", part: "page test", pin: body.curlPin ?? "",
                                    trust: body.certificate, timeout: 10).get()
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty, let stream {
            guard let n = stream.send(Array(bytes)) else { return }
            if n == 0 { usleep(1000) }
            bytes = bytes.dropFirst(n)
        }
    }

    private var got: [UInt8] = []

    /// Reads until `done` holds for everything read so far, or the peer closes, or `within` seconds pass.
    func read(until done: (String) -> Bool, within: Double) async throws -> String {
        let end = monotonicNow() + within
        while true {
            let text = String(decoding: got, as: UTF8.self)
            if done(text) { return text }
            guard let more = stream?.receive() else { return text }
            if !more.isEmpty {
                got += more
                continue
            }
            guard monotonicNow() < end else { throw BodyFailed(words: "waited \(within) s; read so far:\n\(text)") }
            await pause(0.01)
        }
    }

    func close() { stream = nil }

    /// One request on its own connection (`Connection: close`), read to the end.
    static func exchange(_ body: BodyProcess, _ request: String) async throws -> Answer {
        let c = try Raw(body)
        defer { c.close() }
        c.send(request)
        let all = try await c.read(until: { _ in false }, within: 10)
        let parts = all.components(separatedBy: "\r\n\r\n")
        return Answer(head: parts[0], text: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    static func signIn(_ body: BodyProcess, token: String) async throws -> Answer {
        let form = "token=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)
        return try await exchange(body, "POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                                  + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)")
    }

    /// Signs in and returns the cookie's `name=value`.
    static func session(_ body: BodyProcess, token: String) async throws -> String {
        let a = try await signIn(body, token: token)
        guard let cookie = a.header("set-cookie") else { throw BodyFailed(words: "no cookie: \(a.head)") }
        return String(cookie.split(separator: ";")[0])
    }
}
