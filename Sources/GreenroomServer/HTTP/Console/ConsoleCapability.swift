import Hummingbird

/// The admin console at `/console`: one page and its script, no build step and no fetches but
/// the REST API's, signed in with the server API key (kept in the tab's session storage, sent
/// in `Authorization`, never in a URL). The page itself is public; every call it makes needs
/// the key.
struct ConsoleCapability: CapabilityRoutes {
    init(_ core: CapabilityContext) {}

    func addRoutes(_ routes: RestRoutes) {
        // `/console` and `/console/` are one route.
        routes.router.get("/console") { _, _ in
            Response(status: .ok, headers: PageHeaders.html,
                     body: .init(byteBuffer: ByteBuffer(string: ConsolePage.html)))
        }
        routes.router.get("/console/console.js") { _, _ in
            Response(status: .ok, headers: PageHeaders.script,
                     body: .init(byteBuffer: ByteBuffer(string: ConsolePage.script + ConsolePage.dashboardScript)))
        }
    }
}
