extension BenchMedia {
    /// The viewers' page, opened from a file by headless Chromium: several viewers, each its
    /// own Greenroom connection (a `RECV_ONLY` participant) and receive-only peer connection,
    /// joined at once. It reports over the meeting's pub/sub (topic `BENCH`, persisted): when
    /// every viewer has decoded a first frame of every feed (the milliseconds from opening its
    /// WebSocket), and, once the bench publishes `BENCH-STOP` with its measuring window, the
    /// frames per second each viewer decoded of each feed in that window. With `relay=1` its
    /// viewers connect only through the room's TURN servers (`media.iceServers`,
    /// `iceTransportPolicy: relay`) and report the path they took (`relay/tcp`).
    static let viewerPage = #"""
    <!doctype html>
    <html><head><meta charset="utf-8"><title>greenroom bench media: viewers</title></head><body><script>
    'use strict';
    const params = new URLSearchParams(location.search);
    const wsURL = params.get('ws'), meetingId = params.get('meeting'), page = Number(params.get('page'));
    const tokens = params.get('tokens').split(','), names = params.get('names').split(',');
    const relayed = params.get('relay') === '1';
    const stream = 'meeting:' + meetingId;
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

    class Connection {
      constructor(token, onEvent) {
        this.nextId = 1;
        this.pending = new Map();
        this.ws = new WebSocket(`${wsURL}?token=${encodeURIComponent(token)}`);
        this.opened = new Promise((resolve, reject) => { this.ws.onopen = resolve; this.ws.onerror = () => reject(new Error('cannot connect')); });
        this.ws.onmessage = (message) => {
          const frame = JSON.parse(message.data);
          if (frame.event) { onEvent(frame.event); return; }
          const waiting = this.pending.get(frame.re);
          if (!waiting) return;
          this.pending.delete(frame.re);
          if (frame.error) waiting.reject(new Error(`${frame.error.name}: ${frame.error.message}`)); else waiting.resolve(frame.result);
        };
      }
      send(op, args = {}) {
        const id = this.nextId++;
        this.ws.send(JSON.stringify({ id, op, args }));
        return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
      }
    }

    async function gathered(pc) {
      if (pc.iceGatheringState === 'complete') return;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 3000);
        pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); } });
      });
    }

    // Frames decoded so far on each of the viewer's video tracks, in the order of its mids.
    async function decoded(viewer) {
      const byMid = {};
      (await viewer.pc.getStats()).forEach((entry) => {
        if (entry.type === 'inbound-rtp' && entry.kind === 'video') byMid[entry.mid] = entry.framesDecoded || 0;
      });
      return viewer.mids.map((mid) => byMid[mid] || 0);
    }

    async function viewer(token, name, onEvent) {
      const started = performance.now();
      const conn = new Connection(token, onEvent);
      await conn.opened;
      const joined = await conn.send('meeting.join', { meetingId, participantId: name, name, mode: 'RECV_ONLY' });
      const configuration = {};
      if (relayed) {
        configuration.iceServers = (await conn.send('media.iceServers', { stream })).iceServers;
        configuration.iceTransportPolicy = 'relay';
      }
      const result = await conn.send('media.subscribe', { stream });
      const pc = new RTCPeerConnection(configuration);
      await pc.setRemoteDescription(result.jsep);
      await pc.setLocalDescription(await pc.createAnswer());
      await gathered(pc);
      await conn.send('media.answer', { stream, jsep: { type: 'answer', sdp: pc.localDescription.sdp } });
      const self = { conn, pc, name, position: joined.position, mids: result.streams.filter((s) => s.kind === 'video').map((s) => s.mid) };
      const first = self.mids.map(() => null);
      while (first.includes(null) && performance.now() < started + 60000) {
        const frames = await decoded(self);
        frames.forEach((count, index) => { if (count > 0 && first[index] === null) first[index] = Math.round(performance.now() - started); });
        await sleep(20);
      }
      self.first = first;
      self.path = await path(pc);
      return self;
    }

    // The selected candidate pair's local candidate: its type and, for a relay, how it
    // reaches the TURN server (`relay/tcp`).
    async function path(pc) {
      const report = await pc.getStats();
      let pair = null;
      report.forEach((entry) => { if (entry.type === 'transport' && entry.selectedCandidatePairId) pair = report.get(entry.selectedCandidatePairId); });
      const local = pair && report.get(pair.localCandidateId);
      return local ? local.candidateType + (local.relayProtocol ? '/' + local.relayProtocol : '') : 'none';
    }

    const samples = [];
    let viewers = [];
    let reporter = null;

    async function report(payload) {
      await reporter.conn.send('pubsub.publish', { meetingId, topic: 'BENCH', message: payload.kind, payload: Object.assign({ page }, payload), options: { persist: true } });
    }

    function framesPerSecond(from, to) {
      const at = (time) => samples.reduce((best, sample) => Math.abs(sample[0] - time) < Math.abs(best[0] - time) ? sample : best);
      const [start, end] = [at(from), at(to)];
      const seconds = (end[0] - start[0]) / 1000;
      return end[1].map((counts, viewer) => counts.map((count, feed) => seconds > 0 ? (count - ((start[1][viewer] || [])[feed] || 0)) / seconds : 0)).flat();
    }

    function onEvent(event) {
      if (event.type !== 'pubsub.message' || !event.data || !event.data.message || event.data.message.topic !== 'BENCH-STOP') return;
      const window = event.data.message.payload;
      report({ kind: 'fps', fps: framesPerSecond(window.from, window.to).map((fps) => Math.round(fps * 10) / 10) });
    }

    (async () => {
      const settled = await Promise.allSettled(tokens.map((token, index) => viewer(token, names[index], onEvent)));
      viewers = settled.filter((result) => result.status === 'fulfilled').map((result) => result.value);
      const errors = settled.filter((result) => result.status === 'rejected').map((result) => String(result.reason));
      reporter = viewers[0];
      if (!reporter) return;
      await reporter.conn.send('stream.subscribe', { stream, since: reporter.position });
      (async () => {
        for (;;) {
          samples.push([Date.now(), await Promise.all(viewers.map(decoded))]);
          await sleep(500);
        }
      })();
      await report({ kind: 'ready', first: viewers.map((v) => v.first).flat(), paths: viewers.map((v) => v.path), failed: errors.length, errors: errors.slice(0, 3) });
    })();
    </script></body></html>
    """#
}
