import Hummingbird

/// The media demo at `/demo/`: a stage page, one HTML file with its script and no build
/// step, written against the wire protocol alone (docs/PROTOCOL.md). It is how a person
/// tries media in a minute, and what the end-to-end tests drive in a real browser.
///
/// `/demo/?token=T&meeting=M&participant=P&name=N&mode=SEND_AND_RECV&join=1` joins at once;
/// `live=ID&role=host|participant` takes part in a live event instead. A `SIGNALLING_ONLY`
/// participant watches the meeting's livestream while one runs (HLS, played by the browser). Tests read
/// `window.demo.state()` and call `window.demo.*`.
enum DemoPage {
    static func addRoutes(to router: Router<GreenroomRequestContext>) {
        // `/demo` and `/demo/` are one route.
        router.get("/demo") { _, _ in
            Response(status: .ok, headers: PageHeaders.html,
                     body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        router.get("/demo/demo.js") { _, _ in
            Response(status: .ok, headers: PageHeaders.script,
                     body: .init(byteBuffer: ByteBuffer(string: script)))
        }
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Greenroom stage</title>
        <style>
          body { font-family: system-ui, sans-serif; margin: 1rem; background: #111; color: #eee; }
          form, #controls { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: 1rem; }
          input, select, button { font: inherit; padding: .3rem .5rem; }
          #videos { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: .5rem; }
          figure { margin: 0; background: #222; padding: .3rem; }
          figure.pinned { outline: 3px solid #4c4; }
          video { width: 100%; background: #000; }
          #participants li { margin: .2rem 0; }
          #log { font-family: monospace; font-size: .8rem; white-space: pre-wrap; color: #aaa; max-height: 12rem; overflow: auto; }
          #invite { background: #335; padding: .5rem; display: none; }
        </style>
        </head>
        <body>
        <h1>Greenroom stage</h1>
        <form id="join">
          <input name="token" placeholder="client token (greenroom token USER)" size="40" required>
          <input name="meeting" placeholder="meeting id" value="demo">
          <input name="name" placeholder="your name">
          <select name="mode"><option>SEND_AND_RECV</option><option>RECV_ONLY</option><option>SIGNALLING_ONLY</option></select>
          <button>Join</button>
        </form>
        <div id="invite">You are invited on stage. <button id="accept">Accept</button> <button id="decline">Decline</button></div>
        <div id="controls" hidden>
          <button id="mic">Mute mic</button><button id="cam">Camera off</button><button id="leave">Leave</button>
          <span id="status"></span>
        </div>
        <figure id="livestreamBox" hidden><video id="livestream" playsinline controls></video><figcaption>Livestream (HLS)</figcaption></figure>
        <div id="videos"></div>
        <h2>Participants</h2>
        <ul id="participants"></ul>
        <div id="log"></div>
        <script src="/demo/demo.js"></script>
        </body>
        </html>
        """
}
