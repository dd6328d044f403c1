import BodyCore
import BodyHardware
import Foundation
import Glibc
import Testing
import BodyTestSupport

/// The adapter's own line handling over a real loopback socket: gpsd's side is
/// played by the test, so a line can be torn and the connection closed mid-line.
@Suite("the gpsd session reads whole lines and says when gpsd is gone")
struct GpsdSessionTests {
    /// Waits until the session's socket is readable, as the event loop would.
    func readable(_ s: GpsdSession) -> Bool {
        var p = pollfd(fd: s.descriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 2000) == 1
    }

    @Test("a torn line waits for its end; the whole TPV reads as a fix")
    func tornLine() throws {
        let peer = try GpsdPeer()
        let s = try GpsdSession.open(host: "127.0.0.1", port: peer.port)
        defer { s.close() }
        #expect(peer.accept().hasPrefix(#"?WATCH={"enable":true,"json":true"#))
        peer.send(#"{"class":"VERSION","release":"3.22"}"# + "\r\n" + #"{"class":"TPV","device":"/dev/x","mode":3,"time":"2026-11-30T16:00:00.500Z","lat":1.5,"#)
        #expect(readable(s))
        #expect(try s.read() == [.other])
        #expect(try s.read() == [], "nothing whole is waiting, and the read did not block")
        peer.send(#""lon":2.5,"altMSL":12.0,"eph":3.0}"# + "\r\n" + #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/x","driver":"u-blox","cycle":1.00}]}"# + "\r\n")
        #expect(readable(s))
        let reports = try s.read()
        #expect(reports.count == 2)
        guard case .fix(let f) = reports.first else { Issue.record("no fix: \(reports)"); return }
        #expect(f.mode == 3 && f.latitude == 1.5 && f.longitude == 2.5 && f.eph == 3 && f.altitudeMSL == 12)
        #expect(f.time == 1_796_054_400.5 && f.device == "/dev/x")
        #expect(f.speed == nil && f.track == nil && f.epx == nil, "gpsd's NaN arrives as absent")
        #expect(reports.last == .devices([GpsDevice(path: "/dev/x", driver: "u-blox", cycle: 1)]))
        peer.send(#"{"class":"DEVICE","path":"/dev/x","driver":"u-blox","activated":"2026-11-30T16:00:00.000Z","cycle":0.20}"# + "\r\n")
        #expect(readable(s))
        #expect(try s.read() == [.device(GpsDevice(path: "/dev/x", driver: "u-blox", cycle: 0.2))])
    }

    @Test("a line that is not gpsd's JSON is passed over; the watch goes on")
    func unparseable() throws {
        let peer = try GpsdPeer()
        let s = try GpsdSession.open(host: "127.0.0.1", port: peer.port)
        defer { s.close() }
        _ = peer.accept()
        peer.send("not json at all\r\n" + #"{"class":"TPV","device":"/dev/x","mode":1}"# + "\r\n")
        #expect(readable(s))
        var reports: [GpsReport] = []
        for _ in 0..<3 where reports.count < 2 {
            reports += try s.read()
            if reports.count < 2 { _ = readable(s) }
        }
        #expect(reports.count == 2)
        #expect(reports.first == .garbage("not json at all"))
        #expect(reports.last == .fix(GpsFix(mode: 1, device: "/dev/x")))
    }

    /// Reads until `count` reports came (or the socket stays quiet).
    func reports(_ s: GpsdSession, _ count: Int) throws -> [GpsReport] {
        var got: [GpsReport] = []
        for _ in 0..<10 where got.count < count {
            guard readable(s) else { break }
            got += try s.read()
        }
        return got
    }

    @Test("a torn TPV, a NUL and invalid UTF-8 are garbage: no field libgps filled from them is a fix")
    func tornIsGarbage() throws {
        let peer = try GpsdPeer()
        let s = try GpsdSession.open(host: "127.0.0.1", port: peer.port)
        defer { s.close() }
        _ = peer.accept()
        let tpv = #"{"class":"TPV","device":"/dev/x","mode":3,"time":"2026-11-30T16:00:00.500Z","lat":52.5,"lon":13.4}"#
        // Cut inside the latitude: libgps keeps "lat":52 from it; it must not become a place.
        peer.send(String(tpv.prefix(while: { $0 != "." })) + "\n")
        var bad = Array(tpv.utf8)
        bad[bad.firstIndex(of: UInt8(ascii: "x"))!] = 0xFF
        let nul = #"{"class":"TPV","mode":3,"#
        _ = (bad + [0x0A]).withUnsafeBufferPointer { Glibc.send(peer.conn, $0.baseAddress, $0.count, 0) }
        _ = (Array(nul.utf8) + [0x00] + Array(#""lat":1.5,"lon":2.5}"#.utf8) + [0x0A]).withUnsafeBufferPointer {
            Glibc.send(peer.conn, $0.baseAddress, $0.count, 0)
        }
        peer.send(#"{"lat":1.5,"lon":2.5,"mode":3}"# + "\n" + #"{"class":"SKY"}"# + "\n")
        let got = try reports(s, 5)
        #expect(got == [.garbage(String(tpv.prefix(48)) + "..."),
                        .garbage(#"{"class":"TPV","device":"/dev/\xFF","mode":3,"time"..."#),
                        .garbage(nul),
                        .garbage(#"{"lat":1.5,"lon":2.5,"mode":3}"#),
                        .other])
    }

    @Test("a line longer than libgps's buffer, with no end, ends the watch in words; memory stays bounded")
    func hugeLine() throws {
        let peer = try GpsdPeer()
        let s = try GpsdSession.open(host: "127.0.0.1", port: peer.port)
        defer { s.close() }
        _ = peer.accept()
        peer.send(#"{"class":"TPV","device":""# + String(repeating: "x", count: 30_000))
        var lost: GpsdError?
        for _ in 0..<10 where lost == nil {
            guard readable(s) else { break }
            do { _ = try s.read() } catch { lost = error }
        }
        #expect(lost == GpsdError(.lost, "gpsd: lost the watch at 127.0.0.1:\(peer.port): gpsd sent a line longer than 20480 bytes with no end (libgps cannot hold more)"))
    }

    @Test("gpsd hanging up mid-line is a loss in words, not a spin")
    func hangUp() throws {
        let peer = try GpsdPeer()
        let s = try GpsdSession.open(host: "127.0.0.1", port: peer.port)
        _ = peer.accept()
        peer.send(#"{"class":"TPV","mode":"#)
        peer.hangUp()
        #expect(readable(s))
        #expect(throws: GpsdError(.lost, "gpsd: lost the watch at 127.0.0.1:\(peer.port): gpsd closed the connection")) {
            _ = try s.read()
        }
        s.close()
        s.close()
        #expect(s.descriptor == nil)
        #expect(throws: GpsdError.self) { _ = try s.read() }
    }

    @Test("nothing listening: the open fails in words")
    func refused() throws {
        // A port nothing listens on: bound a moment, then let go.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let port = try #require(bindLoopback(probe))
        close(probe)
        #expect(throws: GpsdError.self) { _ = try GpsdSession.open(host: "127.0.0.1", port: port) }
        do {
            _ = try GpsdSession.open(host: "127.0.0.1", port: port)
        } catch {
            #expect(error.kind == .unreachable)
            #expect(error.description.hasPrefix("gpsd: cannot connect to 127.0.0.1:\(port): "))
        }
    }
}
