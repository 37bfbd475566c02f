extension DemoPage {
    /// The start of the demo's script: its helpers (parameters, elements, the log) and the
    /// wire-protocol client, one WebSocket with commands answered by id and events handed on.
    static let connectionScript = #"""
    'use strict';
    const params = new URLSearchParams(location.search);
    const $ = (id) => document.getElementById(id);
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const logLines = [];
    function log(text) {
      logLines.push(new Date().toISOString().slice(11, 23) + ' ' + text);
      $('log').textContent = logLines.slice(-200).join('\n');
    }

    // One WebSocket: commands answered by id, events handed to onEvent, signals to onSignal.
    class Connection {
      constructor(token, onEvent) {
        this.nextId = 1;
        this.pending = new Map();
        const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
        this.ws = new WebSocket(`${scheme}://${location.host}/v1/connect?token=${encodeURIComponent(token)}`);
        this.opened = new Promise((resolve, reject) => {
          this.ws.onopen = resolve;
          this.ws.onerror = () => reject(Object.assign(new Error('cannot connect'), { name: 'connectionLost' }));
        });
        this.ws.onmessage = (message) => {
          const frame = JSON.parse(message.data);
          if (frame.event) { onEvent(frame.event); return; }
          if (frame.signal) { onSignal(frame.signal); return; }
          const waiting = this.pending.get(frame.re);
          if (!waiting) return;
          this.pending.delete(frame.re);
          if (frame.error) {
            waiting.reject(Object.assign(new Error(frame.error.message), { name: frame.error.name, code: frame.error.code }));
          } else {
            waiting.resolve(frame.result);
          }
        };
        this.ws.onclose = (event) => {
          log(`connection closed (${event.code} ${event.reason})`);
          state.connected = false;
          for (const waiting of this.pending.values()) waiting.reject(Object.assign(new Error('connection closed'), { name: 'connectionLost' }));
          this.pending.clear();
        };
      }
      send(op, args = {}) {
        const id = this.nextId++;
        this.ws.send(JSON.stringify({ id, op, args }));
        return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
      }
    }
    """#
}
