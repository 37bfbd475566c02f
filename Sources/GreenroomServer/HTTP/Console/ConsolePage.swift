/// The console's page: a sign-in form, a tab per part of the app, and the views the script
/// fills in.
enum ConsolePage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Greenroom console</title>
        <style>
          [hidden] { display: none !important; }
          body { font-family: system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
          header { background: #1d5c3a; color: #fff; padding: .6rem 1rem; display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
          header h1 { font-size: 1.1rem; margin: 0; }
          nav button { background: transparent; color: #dfe; border: 0; padding: .3rem .6rem; font: inherit; cursor: pointer; }
          nav button.active { background: #2f7d52; color: #fff; border-radius: 4px; }
          main { padding: 1rem; }
          form { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: .8rem; align-items: center; }
          input, select, button, textarea { font: inherit; padding: .3rem .5rem; }
          table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: 1rem; }
          th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; font-size: .9rem; }
          th { background: #eef0f3; }
          code, pre { font-size: .8rem; }
          pre { margin: 0; white-space: pre-wrap; word-break: break-all; max-width: 28rem; }
          .error { background: #fde8e8; color: #8a1c1c; padding: .5rem 1rem; margin: 0 0 1rem; display: none; }
          .muted { color: #6b7280; }
          .deleted { color: #9aa0a6; font-style: italic; }
          tr.reported { background: #fff4d6; }
          img.thumb { width: 96px; height: 54px; object-fit: cover; background: #ddd; }
          #signin { background: #fff; padding: 1rem; max-width: 32rem; }
          .charts { display: flex; flex-wrap: wrap; gap: .8rem; }
          figure.chart { margin: 0; background: #fff; padding: .5rem; border: 1px solid #e3e6eb; }
          figure.chart figcaption { font-size: .85rem; margin-bottom: .3rem; }
          figure.chart .legend { font-size: .8rem; display: flex; gap: .8rem; margin-top: .2rem; }
          #stream-log { background: #111; color: #cfe; padding: .5rem; min-height: 8rem; max-height: 24rem; overflow: auto; }
        </style>
        </head>
        <body>
        <header>
          <h1>Greenroom console</h1>
          <nav id="tabs" hidden>
            <button data-view="dashboard">Dashboard</button>
            <button data-view="users">Users</button>
            <button data-view="channels">Channels</button>
            <button data-view="reports">Reports</button>
            <button data-view="live">Live events</button>
            <button data-view="meetings">Meetings</button>
            <button data-view="videos">Videos</button>
            <button data-view="connections">Connections</button>
            <button data-view="stream">Stream</button>
          </nav>
          <span style="flex: 1"></span>
          <button id="signout" hidden>Sign out</button>
        </header>
        <main>
          <p id="error" class="error" role="alert"></p>
          <form id="signin">
            <label>Server API key <input id="key" type="password" autocomplete="off" size="40" required></label>
            <button id="signin-button" type="submit">Sign in</button>
            <span class="muted">The key stays in this tab (session storage) and goes only in <code>Authorization</code>.</span>
          </form>
          <section id="view"></section>
        </main>
        <script src="/console/console.js"></script>
        </body>
        </html>
        """
}
