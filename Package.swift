// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "greenroom",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "GreenroomProtocol", targets: ["GreenroomProtocol"]),
        .library(name: "GreenroomServer", targets: ["GreenroomServer"]),
        .library(name: "Greenroom", targets: ["Greenroom"]),
        .library(name: "GreenroomUI", targets: ["GreenroomUI"]),
        .executable(name: "greenroom", targets: ["greenroom"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // Tracing: spans through swift-distributed-tracing, exported over OTLP/HTTP by swift-otel
        // (its gRPC exporter left out, which would build gRPC and HTTP/2 for nothing).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Tests make their own CA and server certificate for the TLS tests.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.5.2"..<"6.0.0"),
        // The tests' REST client, generated from docs/openapi.json as an app's backend would.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs of the SDK and the protocol.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "GreenroomProtocol",
            swiftSettings: strict
        ),
        .target(
            name: "GreenroomStorage",
            dependencies: [
                "GreenroomProtocol",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The embedded backend: one SQLite file, its writes on a thread of their own.
        .target(
            name: "GreenroomSQLite",
            dependencies: [
                "GreenroomStorage",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The backend for many nodes: PostgreSQL, and LISTEN/NOTIFY between the nodes.
        .target(
            name: "GreenroomPostgres",
            dependencies: [
                "GreenroomStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // What every part of the server shares and that knows no network, no HTTP and no
        // product: the node's writer (the event log) with its broker protocol, the outbox and
        // its dispatcher, callers and rosters, what capabilities share, child programs and
        // the metrics.
        .target(
            name: "GreenroomCore",
            dependencies: [
                "GreenroomProtocol",
                "GreenroomStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // Live media: rooms on the SFU with their owners' rules, Janus's API and the Janus a
        // server runs, HLS livestreams through ffmpeg. It reaches Janus through a connector
        // the server gives it, so it knows no network library.
        .target(
            name: "GreenroomMedia",
            dependencies: [
                "GreenroomProtocol",
                "GreenroomStorage",
                "GreenroomCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The product's capabilities (users, app streams, chat, live events, meetings, videos,
        // media signalling, webhooks, push): their rules, records, operations and background
        // work, over the core and the media plane. No network library, no HTTP server: their
        // REST routes are the server's (HTTP/CapabilityRoutes/), their outbound calls go
        // through the core's OutboundHTTP.
        .target(
            name: "GreenroomCapabilities",
            dependencies: [
                "GreenroomProtocol",
                "GreenroomStorage",
                "GreenroomCore",
                "GreenroomMedia",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "GreenroomServer",
            dependencies: [
                "GreenroomProtocol",
                "GreenroomStorage",
                "GreenroomCore",
                "GreenroomMedia",
                "GreenroomCapabilities",
                "GreenroomSQLite",
                "GreenroomPostgres",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Greenroom",
            dependencies: [
                "GreenroomProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The offline store (ClientConfiguration.localStore): the SQLite sqlite-nio
                // builds in, the same on Linux and Apple platforms.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "GreenroomUI",
            dependencies: ["Greenroom"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "greenroom",
            dependencies: [
                "GreenroomServer",
                "Greenroom",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GreenroomProtocolTests",
            dependencies: ["GreenroomProtocol"],
            swiftSettings: strict
        ),
        // A client of the REST API generated from docs/openapi.json (a link in its folder) by
        // swift-openapi-generator's build plugin, as an app's backend would make one; only
        // the tests use it.
        .target(
            name: "GreenroomGeneratedClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/GreenroomGeneratedClient",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .testTarget(
            name: "GreenroomServerTests",
            dependencies: [
                "GreenroomServer", "Greenroom", "GreenroomProtocol", "GreenroomUI", "greenroom", "GreenroomGeneratedClient",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // chromedriver's answers have headers FoundationNetworking cannot read.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The OTLP exporter (swift-otel), left out of the ThreadSanitizer build (`.ci/run` sets
// GREENROOM_WITHOUT_OTEL=1 there): Swift 6.3.1 refuses to compile swift-otel 1.6.0 with
// -sanitize=thread ("sending 'logger' risks causing data races" in its batch processors,
// where the sanitizer's instrumentation of a captured var counts as a concurrent use), while
// the same source compiles without it. Such a build serves no traces (TracingBackend); a
// condition, not `canImport`, says so, since the module may be in .build from another build.
if let server = package.targets.first(where: { $0.name == "GreenroomServer" }) {
    if Context.environment["GREENROOM_WITHOUT_OTEL"] == "1" {
        server.swiftSettings = (server.swiftSettings ?? []) + [.define("GREENROOM_WITHOUT_OTEL")]
    } else {
        server.dependencies.append(.product(name: "OTel", package: "swift-otel"))
    }
}

// The generated REST client and its suite, left out of the ThreadSanitizer build (`.ci/run`
// sets GREENROOM_WITHOUT_GENERATED_CLIENT=1 there): building swift-openapi-generator's tool
// (OpenAPIKit, Yams) and the generated client was about 15% of that build's compile time,
// and the suite's calls are REST requests the other suites make under the sanitizer too.
// `swift test` without it runs the suite as always.
if Context.environment["GREENROOM_WITHOUT_GENERATED_CLIENT"] == "1" {
    package.targets.removeAll { $0.name == "GreenroomGeneratedClient" }
    if let tests = package.targets.first(where: { $0.name == "GreenroomServerTests" }) {
        tests.dependencies.removeAll { dependency in
            if case .byNameItem(name: "GreenroomGeneratedClient", _) = dependency { return true }
            return false
        }
        tests.swiftSettings = (tests.swiftSettings ?? []) + [.define("GREENROOM_WITHOUT_GENERATED_CLIENT")]
    }
}

// `Fuzz/run` builds the server's libFuzzer target with GREENROOM_FUZZ=1: the files the
// server reads network input with (linked into Fuzz/Server) compiled with coverage and
// AddressSanitizer, beside the same dependencies as every other build. It is not part of
// the package otherwise. Its `main` hands over to libFuzzer's driver (Fuzz/Driver).
if Context.environment["GREENROOM_FUZZ"] == "1" {
    let fuzz: [String] = ["-sanitize=fuzzer,address"]
    package.products.append(.executable(name: "greenroom-fuzz-server", targets: ["greenroom-fuzz-server"]))
    package.targets.append(.target(name: "FuzzerDriver", path: "Fuzz/Driver"))
    package.targets.append(.executableTarget(
        name: "greenroom-fuzz-server",
        dependencies: [
            "FuzzerDriver",
            "GreenroomProtocol",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ],
        path: "Fuzz/Server",
        // Optimized: the harness builds frames of up to 64 KiB byte by byte.
        swiftSettings: strict + [.unsafeFlags(fuzz + ["-O"])],
        linkerSettings: [.unsafeFlags(fuzz)]))
}
