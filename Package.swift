// swift-tools-version:6.2
// studio-body: the studio's On Air lamp and kill switch, a body of the house.
import PackageDescription

// Tests/hil/gpio-tests builds a second time against libgpiod 2.x unpacked in
// a prefix (include/, lib/). By full path: pkg-config's -L/usr/lib/... come
// first on the link line and would pick the system's libgpiod 1.6.
let gpiodPrefix = Context.environment["STUDIO_BODY_LIBGPIOD_PREFIX"].flatMap { $0.isEmpty ? nil : $0 }

let package = Package(
    name: "studio-body",
    products: [
        .executable(name: "studio-body", targets: ["studio-body"]),
    ],
    targets: [
        // The house's rules as plain values with the caller's clock. No I/O.
        .target(name: "BodyCore"),
        // The INI configuration and board files, parsed into values. No I/O.
        .target(name: "BodyConfig", dependencies: ["BodyCore"]),

        // One module per C library; nothing above them sees a C type.
        .target(name: "CSystem"),
        // Every system call the body makes (errno, EINTR, epoll, eventfd, timerfd,
        // signalfd, the clocks, the notify socket, threads, files), in the swift-system
        // style, over Glibc and CSystem: no other module imports Glibc.
        .target(name: "BodySystem", dependencies: ["CSystem"]),
        .target(name: "CGpiod", cSettings: gpiodPrefix.map { [.unsafeFlags(["-I\($0)/include"])] },
                linkerSettings: gpiodPrefix.map { [.unsafeFlags(["-Xlinker", "\($0)/lib/libgpiod.so", "-Xlinker", "-rpath", "-Xlinker", "\($0)/lib"])] }
                    ?? [.linkedLibrary("gpiod")]),
        .systemLibrary(name: "CGps", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        // A C target that loads libcurl when the hello first needs it (ccurl.h says why);
        // curl.h comes from libcurl4-openssl-dev, libcurl.so.4 from libcurl4.
        .target(name: "CCurl"),
        // A C target, not a system library: pages.c turns libmicrohttpd's own
        // HTML error pages into the body's JSON (docs/decisions.md).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd"), .linkedLibrary("dl")]),
        .target(name: "CV4L2"),
        // GnuTLS for the body's own key and certificate (libgnutls28-dev; libmicrohttpd serves TLS through it too).
        .target(name: "CTLS", linkerSettings: [.linkedLibrary("gnutls")]),
        // No pkgConfig: avahi-client.pc only adds -D_REENTRANT, which SwiftPM refuses with a warning.
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),

        // Adapters: C in, BodyCore values out.
        .target(name: "BodyHardware", dependencies: ["BodyCore", "BodySystem", "CGpiod", "CGps", "CV4L2", "CTurboJPEG"]),
        .target(name: "BodyHTTP", dependencies: ["BodyCore", "BodySystem", "CMicroHTTPD"]),
        .target(name: "BodyHub", dependencies: ["BodySystem", "CCurl"]),
        // The body's key and self-signed certificate, made once and pinned by Oriel.
        .target(name: "BodyTLS", dependencies: ["BodyCore", "CTLS"]),
        // The DNS-SD announcement through avahi-daemon, on Avahi's own thread.
        .target(name: "BodyAnnounce", dependencies: ["BodyCore", "BodySystem", "CAvahi"]),

        // The one owner of state.
        .target(name: "BodyAgent", dependencies: ["BodySystem", "BodyCore", "BodyConfig", "BodyHardware", "BodyHTTP", "BodyHub", "BodyAnnounce", "BodyTLS"]),
        // `studio-body demo`: a small hub that behaves like Oriel, kept apart from the body.
        .target(name: "DemoHub", dependencies: ["BodyCore", "BodySystem", "BodyHub"]),
        .executableTarget(name: "studio-body", dependencies: ["BodyAgent", "BodyConfig", "BodyCore", "BodyHardware", "BodySystem", "BodyTLS", "DemoHub"]),
        // The HTTP server alone with a trivial handler, for wrk (scripts/bench). Not installed.
        .executableTarget(name: "http-bench", dependencies: ["BodyHTTP", "BodySystem"]),

        // What several test targets share: loopback sockets, the feeder's socket, the repository's files,
        // the real body started for a test, the tests' own clock.
        .target(name: "BodyTestSupport", path: "Tests/BodyTestSupport"),
        .testTarget(name: "BodyCoreTests", dependencies: ["BodyCore", "BodyTestSupport"]),
        .testTarget(name: "BodySystemTests", dependencies: ["BodySystem", "BodyTestSupport"]),
        .testTarget(name: "EventLoopTests", dependencies: ["BodyAgent", "BodySystem", "BodyTestSupport"]),
        // The agent built in the process on a fake board, a fake HTTP server and a manual clock, turned by
        // hand: no socket, thread or sleep. The harness is a module of its own (built with testing, as
        // every debug build is) so the suites on real sockets (libmicrohttpd's, a hello's libcurl) can share
        // it from a target of their own.
        .target(name: "AgentHarness", dependencies: ["BodyAgent", "BodyConfig", "BodyCore", "BodyHardware", "BodyHTTP", "BodySystem"],
                path: "Tests/AgentHarness"),
        .testTarget(name: "AgentTests", dependencies: ["AgentHarness", "BodyAgent", "BodyCore", "BodyConfig", "BodyHardware", "BodyHTTP", "BodySystem", "BodyTestSupport"]),
        .testTarget(name: "LibmicrohttpdAgentTests", dependencies: ["AgentHarness", "BodyAgent", "BodyCore", "BodyHub", "BodySystem", "BodyTestSupport"]),
        .testTarget(name: "BodyConfigTests", dependencies: ["BodyConfig", "BodyCore", "BodyTestSupport"]),
        .testTarget(name: "BodyHTTPTests", dependencies: ["BodyHTTP", "BodyTLS", "BodyTestSupport"]),
        .testTarget(name: "BodyTLSTests", dependencies: ["BodyTLS", "BodyCore", "BodyTestSupport"]),
        .testTarget(name: "BodyHubTests", dependencies: ["BodyHub", "DemoHub", "BodyCore", "BodyTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["BodyTestSupport", "BodyHub"]),
        // Real kernel drivers (gpio-sim, vivid, v4l2loopback): run inside the VM, skipped elsewhere.
        .testTarget(name: "HardwareTests", dependencies: ["BodyHardware", "BodyCore", "BodySystem", "BodyTestSupport"]),
        .testTarget(name: "CameraTests", dependencies: ["BodyHardware", "BodyCore", "BodySystem"]),
        // The GPIO board over a fake chip behind GpioCalls: a busy line, a chip that goes, a read that fails, anywhere.
        .testTarget(name: "GpioTests", dependencies: ["BodyHardware", "BodyCore", "BodySystem"]),
        // The gpsd session's line handling over a loopback socket. The /where scenarios
        // against a real gpsd run through the daemon: Tests/gps/where_http.py.
        .testTarget(name: "WhereTests", dependencies: ["BodyHardware", "BodyCore", "BodyTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// scripts/cross's aarch64 test build (issue 34) compiles only the test targets it runs under
// qemu-user, and what they depend on: STUDIO_BODY_TESTS=BodyCoreTests,BodySystemTests keeps
// those test targets and their dependencies, and drops every other target and product
// (`swift build --build-tests` otherwise builds the whole body, optimised, for nothing).
if let kept = Context.environment["STUDIO_BODY_TESTS"].flatMap({ $0.isEmpty ? nil : $0 }) {
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var keep = Set<String>()
    var next = kept.split(separator: ",").map(String.init)
    while let name = next.popLast() {
        guard keep.insert(name).inserted, let target = byName[name] else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): next.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !keep.contains($0.name) }
    package.products = []
}

// libFuzzer targets (docs/reliability.md), only for scripts/fuzz, which sets
// STUDIO_BODY_FUZZ=1 and builds them in .build/fuzz with -sanitize=fuzzer,address.
// Each is one file whose entry is LLVMFuzzerTestOneInput; libFuzzer brings main.
if Context.environment["STUDIO_BODY_FUZZ"] == "1" {
    let fuzzTargets: [(String, [Target.Dependency])] = [
        ("FuzzPush", ["BodyCore"]),
        ("FuzzConfig", ["BodyConfig", "BodyCore"]),
        ("FuzzRouting", ["BodyHTTP"]),
        ("FuzzJPEG", ["BodyHardware"]),
        ("FuzzHello", ["BodyHub"]),
        ("FuzzSimPress", ["BodyAgent", "BodyHTTP"]),
    ]
    for (name, dependencies) in fuzzTargets {
        package.targets.append(.executableTarget(name: name, dependencies: dependencies, path: "Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
