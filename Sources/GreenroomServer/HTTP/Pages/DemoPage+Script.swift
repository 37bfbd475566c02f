extension DemoPage {
    /// The demo's script: a wire-protocol client (commands by id, events by stream) and the
    /// stage (join, publish with the camera and microphone, receive every other feed,
    /// renegotiate as feeds come and go, follow mode changes, invite on stage over pub/sub
    /// as seed 001 does, pin, publish again after the media server came back, restart ICE
    /// when a connection goes down).
    static let script = connectionScript + "\n\n" + stageScript + "\n\n" + networkScript

    /// The stage: state, media, rooms and the page's controls, after ``connectionScript``.
    static let stageScript = #"""
    const state = {
      connected: false, joined: false, kind: null, id: null, stream: null, role: null, mode: null,
      participantId: null, publishing: false, myFeed: null, feeds: {}, subscribed: {}, midToFeed: {},
      participants: {}, pins: {}, invitedBy: null, errors: [], mediaServerLost: 0, republished: 0, talking: [],
      livestream: null, watching: false, livestreamLoads: 0, sharing: null,
    };
    let conn = null, token = null, pubPc = null, subPc = null, localStream = null, chain = Promise.resolve();
    const trackToFeed = {}, remoteStreams = {};

    // Signalling steps run one at a time, in the order events asked for them.
    function serial(step) {
      const next = chain.then(step);
      chain = next.catch(fail);
      return next;
    }
    function fail(error) {
      state.errors.push({ name: error.name, code: error.code, message: error.message });
      log(`error: ${error.name}: ${error.message}`);
    }

    const canPublish = () => state.kind === 'meeting' ? state.mode === 'SEND_AND_RECV' : state.role === 'host';
    const canReceive = () => state.kind === 'live' || state.mode !== 'SIGNALLING_ONLY';

    async function gathered(pc) {
      if (pc.iceGatheringState === 'complete') return;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 3000);
        pc.addEventListener('icegatheringstatechange', () => {
          if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
        });
      });
    }

    // The peer connections' configuration: the room's STUN and TURN servers (TURN with a
    // credential of this user's), asked for again when the credential is about to expire;
    // ?relay=1 allows only relayed paths (TURN), for trying a firewall that drops UDP.
    let ice = null;
    async function peerConfiguration() {
      if (!ice || (ice.expiresAt && Date.parse(ice.expiresAt) - Date.now() < 60000)) {
        ice = await conn.send('media.iceServers', { stream: state.stream });
      }
      return { iceServers: ice.iceServers, iceTransportPolicy: params.get('relay') === '1' ? 'relay' : 'all' };
    }

    // MARK: Publishing

    async function publish() {
      if (pubPc) return;
      localStream = localStream || await capture();
      const pc = new RTCPeerConnection(await peerConfiguration());
      pubPc = pc;
      for (const track of localStream.getTracks()) pc.addTransceiver(track, sendOptions(track));
      // What was muted stays muted: nothing of it is sent, so Janus never sees it flow.
      for (const kind of ['audio', 'video']) if (muted[kind]) await setSending(kind, false);
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc);
      try {
        const result = await conn.send('media.publish', { stream: state.stream, jsep: { type: 'offer', sdp: pc.localDescription.sdp } });
        await pc.setRemoteDescription(result.jsep);
        state.publishing = true;
        state.myFeed = result.feed.feedId;
        showVideo('local', localStream, `${state.participantId} (you)`, true);
        if (state.kind === 'meeting') await conn.send('meeting.setMedia', { meetingId: state.id, micOn: !muted.audio, webcamOn: !muted.video });
        log(`publishing feed ${result.feed.feedId}`);
      } catch (error) {
        stopPublishing();
        throw error;
      }
    }

    // The camera and microphone; with ?tone=1 a steady tone instead of the microphone (a
    // participant that talks all the time, for trying the speaker events).
    async function capture() {
      if (params.get('clock') === '1') return clockStream();
      if (params.get('tone') !== '1') return navigator.mediaDevices.getUserMedia({ audio: true, video: cameraSize() });
      const camera = await navigator.mediaDevices.getUserMedia({ video: cameraSize() });
      const context = new AudioContext();
      const oscillator = context.createOscillator();
      const destination = context.createMediaStreamDestination();
      oscillator.frequency.value = 440;
      oscillator.connect(destination);
      oscillator.start();
      return new MediaStream([...destination.stream.getAudioTracks(), ...camera.getVideoTracks()]);
    }

    // MARK: The clock (for measuring latency)

    // ?clock=1 publishes a 640×360 canvas instead of the camera: the sender's clock
    // (Date.now() modulo 2^32 ms) drawn as 32 black or white cells along the top, read back
    // from whatever plays it (readClock) on the same machine.
    const clockCells = 32, clockCell = 20, clockBand = 60;
    async function clockStream() {
      const video = drawnStream(30, (context, frame) => {
        const now = Date.now() % 4294967296;
        context.fillStyle = '#404040';
        context.fillRect(0, 0, 640, 360);
        for (let bit = 0; bit < clockCells; bit++) {
          context.fillStyle = Math.floor(now / 2 ** (clockCells - 1 - bit)) % 2 ? '#ffffff' : '#000000';
          context.fillRect(bit * clockCell, 0, clockCell, clockBand);
        }
        context.fillStyle = '#80c080';
        context.fillRect((frame * 8) % 640, 200, 40, 40);
      });
      const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
      return new MediaStream([...microphone.getAudioTracks(), ...video.getVideoTracks()]);
    }

    // A 640×360 canvas drawn `fps` times a second by draw(context, frame), as a stream.
    function drawnStream(fps, draw) {
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 360;
      const context = canvas.getContext('2d');
      let frame = 0;
      setInterval(() => draw(context, frame++), 1000 / fps);
      return canvas.captureStream(fps);
    }

    // The sender's clock as the livestream's current frame shows it, and how far behind
    // this page's clock that is (glass to glass, on one machine).
    function readClock() {
      const video = $('livestream');
      if (!video.videoWidth) return null;
      const canvas = document.createElement('canvas');
      canvas.width = 640;
      canvas.height = 360;
      const context = canvas.getContext('2d', { willReadFrequently: true });
      context.drawImage(video, 0, 0, 640, 360);
      const now = Date.now() % 4294967296;
      let stamp = 0;
      for (let bit = 0; bit < clockCells; bit++) {
        const pixel = context.getImageData(bit * clockCell + clockCell / 2, clockBand / 2, 1, 1).data;
        stamp = stamp * 2 + ((pixel[0] + pixel[1] + pixel[2]) / 3 > 128 ? 1 : 0);
      }
      return { stamp, now, latency: ((now - stamp) % 4294967296 + 4294967296) % 4294967296 };
    }

    // Muting stops sending the track (the sender has none), rather than only disabling it: a
    // disabled track still sends silence or black frames, so the server could not tell it
    // from a quiet room; with nothing sent, Janus reports the media gone and the server turns
    // the microphone or camera off for everyone.
    const muted = { audio: false, video: false };
    async function setSending(kind, on) {
      muted[kind] = !on;
      const track = localStream && localStream.getTracks().find((candidate) => candidate.kind === kind);
      if (track) track.enabled = on;
      if (!pubPc) return;
      for (const transceiver of pubPc.getTransceivers()) {
        if (transceiver.mid === state.sharing) continue;
        if (transceiver.receiver.track.kind === kind) await transceiver.sender.replaceTrack(on && track ? track : null);
      }
    }

    // Screen share: one more video track on the publisher's connection, renegotiated with
    // its mid named in `shares`, so that the server tells it from the camera (the livestream
    // shows it for a SHARE pin). With { fake: true } (a headless browser has no screen to
    // pick) a drawn canvas of one colour stands in for the screen.
    async function shareScreen(options = {}) {
      if (!pubPc) throw new Error('share the screen while publishing');
      if (state.sharing) return state.sharing;
      const screen = options.fake ? fakeScreen(options.color || '#d02020') : await navigator.mediaDevices.getDisplayMedia({ video: true });
      const transceiver = pubPc.addTransceiver(screen.getVideoTracks()[0], { direction: 'sendonly', streams: [screen] });
      await pubPc.setLocalDescription(await pubPc.createOffer());
      await gathered(pubPc);
      const result = await conn.send('media.publish', {
        stream: state.stream, jsep: { type: 'offer', sdp: pubPc.localDescription.sdp }, shares: [transceiver.mid],
      });
      await pubPc.setRemoteDescription(result.jsep);
      state.sharing = transceiver.mid;
      log(`sharing the screen as track ${transceiver.mid}`);
      return state.sharing;
    }

    function fakeScreen(color) {
      return drawnStream(15, (context, frame) => {
        context.fillStyle = color;
        context.fillRect(0, 0, 640, 360);
        context.fillStyle = '#ffffff';
        context.fillRect((frame * 8) % 640, 170, 8, 20);
      });
    }

    function stopPublishing() {
      if (pubPc) pubPc.close();
      pubPc = null;
      state.publishing = false;
      state.sharing = null;
      state.myFeed = null;
      removeVideo('local');
      if (localStream) localStream.getTracks().forEach((track) => track.stop());
      localStream = null;
    }

    // MARK: Receiving

    async function negotiate(result) {
      for (const stream of result.streams) state.midToFeed[stream.mid] = stream.feedId;
      if (!result.jsep) return;
      if (!subPc) {
        subPc = new RTCPeerConnection(await peerConfiguration());
        subPc.ontrack = onTrack;
      }
      await subPc.setRemoteDescription(result.jsep);
      await subPc.setLocalDescription(await subPc.createAnswer());
      await gathered(subPc);
      await conn.send('media.answer', { stream: state.stream, jsep: { type: 'answer', sdp: subPc.localDescription.sdp } });
    }

    function onTrack(event) {
      const feedId = state.midToFeed[event.transceiver.mid];
      trackToFeed[event.track.id] = feedId;
      const key = 'feed-' + feedId;
      const stream = remoteStreams[key] || (remoteStreams[key] = new MediaStream());
      stream.addTrack(event.track);
      const feed = state.feeds[feedId];
      showVideo(key, stream, feed ? feed.participantId : String(feedId), false);
    }

    async function subscribe(feedIds) {
      const wanted = feedIds.filter((feedId) => !state.subscribed[feedId] && feedId !== state.myFeed);
      if (!wanted.length || !canReceive()) return;
      const result = await conn.send('media.subscribe', { stream: state.stream, feeds: wanted });
      wanted.forEach((feedId) => { state.subscribed[feedId] = true; });
      await negotiate(result);
    }

    async function unsubscribe(feedId) {
      removeVideo('feed-' + feedId);
      delete remoteStreams['feed-' + feedId];
      if (!state.subscribed[feedId]) return;
      delete state.subscribed[feedId];
      const result = await conn.send('media.unsubscribe', { stream: state.stream, feeds: [feedId] });
      await negotiate(result);
    }

    async function receiveAll() {
      if (!canReceive()) return;
      const room = await conn.send('media.feeds', { stream: state.stream });
      for (const feed of room.feeds) state.feeds[feed.feedId] = feed;
      await subscribe(room.feeds.filter((feed) => feed.participantId !== state.participantId).map((feed) => feed.feedId));
    }

    function stopReceiving() {
      if (subPc) subPc.close();
      subPc = null;
      state.subscribed = {};
      state.midToFeed = {};
      for (const key of Object.keys(remoteStreams)) { removeVideo(key); delete remoteStreams[key]; }
    }

    // The media server was lost: every session is gone. Publish again once it is back.
    async function recover() {
      state.mediaServerLost += 1;
      const wasPublishing = state.publishing;
      stopReceiving();
      stopPublishing();
      if (!wasPublishing || !canPublish()) return;
      for (;;) {
        try {
          await publish();
          state.republished += 1;
          return;
        } catch (error) {
          if (error.name !== 'unavailable') throw error;
          await sleep(1000);
        }
      }
    }

    // MARK: Events

    function onEvent(event) {
      const data = event.data || {};
      switch (event.type) {
        case 'media.published':
          state.feeds[data.feed.feedId] = data.feed;
          if (data.feed.participantId !== state.participantId) serial(() => subscribe([data.feed.feedId]));
          break;
        case 'media.updated':
          state.feeds[data.feed.feedId] = data.feed;
          break;
        case 'media.unpublished':
          delete state.feeds[data.feed.feedId];
          if (data.reason === 'mediaServerLost') {
            if (!state.recovering) {
              state.recovering = true;
              serial(recover).finally(() => { state.recovering = false; });
            }
          } else if (data.feed.feedId === state.myFeed) {
            serial(async () => stopPublishing());
          } else {
            serial(() => unsubscribe(data.feed.feedId));
          }
          break;
        case 'media.talking':
          state.talking = state.talking.filter((id) => id !== data.participantId);
          if (data.talking) state.talking.push(data.participantId);
          break;
        case 'meeting.participantJoined':
        case 'meeting.participantStateChanged':
          state.participants[data.participant.participantId] = data.participant;
          break;
        case 'meeting.participantLeft':
          delete state.participants[data.participantId];
          break;
        case 'meeting.modeChanged':
          if (state.participants[data.participantId]) state.participants[data.participantId].mode = data.mode;
          if (data.participantId === state.participantId) serial(() => modeChanged(data.mode));
          break;
        case 'meeting.pinStateChanged':
          state.pins[data.participantId] = data.pinState;
          break;
        case 'meeting.ended':
        case 'live.ended':
          stopPublishing();
          stopReceiving();
          state.joined = false;
          log('ended');
          break;
        case 'pubsub.message':
          onPubSub(data.message);
          break;
        case 'meeting.livestreamStateChanged':
        case 'live.livestreamStateChanged':
          state.livestream = data.livestream;
          break;
      }
      render();
    }

    // MARK: The livestream

    // A SIGNALLING_ONLY viewer watches the livestream (HLS, played by the browser itself:
    // Safari and Chromium do) while it runs; invited on stage, it switches to WebRTC. While
    // the server restarts its encoder (LIVESTREAM_STARTING with a reason) the player is left
    // alone: the playlist goes on with the same numbering and the player follows it.
    function updateLivestream() {
      const video = $('livestream');
      const live = state.livestream;
      const running = live && (live.status === 'LIVESTREAM_STARTED' || (state.watching && live.status === 'LIVESTREAM_STARTING'));
      const watch = state.joined && !canReceive() && running;
      if (watch && !state.watching) {
        state.watching = true;
        state.livestreamLoads += 1;
        $('livestreamBox').hidden = false;
        video.muted = true;
        // A token for this livestream's files alone: the session's own never goes in a URL.
        const scope = live.playlist.slice(0, live.playlist.lastIndexOf('/') + 1);
        conn.send('token.resource', { scope }).then((issued) => {
          if (!state.watching) return;
          video.src = `${live.playlist}?token=${encodeURIComponent(issued.token)}`;
          video.play().catch((error) => log(`the livestream does not play: ${error.message}`));
          log('watching the livestream');
        }).catch((error) => log(`no token for the livestream: ${error.message}`));
      } else if (!watch && state.watching) {
        state.watching = false;
        video.pause();
        video.removeAttribute('src');
        video.load();
        $('livestreamBox').hidden = true;
        log('stopped watching the livestream');
      }
    }

    function livestreamStats() {
      const video = $('livestream');
      const quality = video.getVideoPlaybackQuality ? video.getVideoPlaybackQuality() : { totalVideoFrames: 0 };
      return { watching: state.watching, loads: state.livestreamLoads, currentTime: video.currentTime, frames: quality.totalVideoFrames, width: video.videoWidth,
               error: video.error ? video.error.message || String(video.error.code) : null };
    }

    async function modeChanged(mode) {
      state.mode = mode;
      if (mode !== 'SEND_AND_RECV') stopPublishing();
      if (mode === 'SIGNALLING_ONLY') stopReceiving();
      if (mode === 'SEND_AND_RECV') await publish();
      if (mode !== 'SIGNALLING_ONLY' && !subPc) await receiveAll();
    }

    // Seed 001's invitation on stage: HOSTREQUESTED to the viewer, ACK back.
    function onPubSub(message) {
      if (message.topic !== 'HOSTREQUESTED' || !message.payload || message.payload.receiverId !== state.participantId) return;
      state.invitedBy = message.payload.senderId;
      log(`${message.payload.senderName} invites you on stage`);
      if (params.get('autoAccept') === '1') { serial(() => answerInvite(true)); } else { $('invite').style.display = 'block'; }
    }

    async function answerInvite(accept) {
      $('invite').style.display = 'none';
      if (accept) await conn.send('meeting.changeMode', { meetingId: state.id, mode: 'SEND_AND_RECV' });
      await conn.send('pubsub.publish', {
        meetingId: state.id, topic: 'ACK', message: accept ? 'ACCEPTED' : 'DECLINED',
        payload: { receiverId: state.invitedBy, accepterName: state.participantId },
      });
    }

    // MARK: Joining

    async function join(options) {
      token = options.token;
      conn = new Connection(options.token, onEvent);
      await conn.opened;
      state.connected = true;
      let position;
      if (options.live) {
        state.kind = 'live';
        state.id = options.live;
        state.role = options.role === 'host' ? 'host' : 'participant';
        state.participantId = options.userId;
        const entry = await conn.send(state.role === 'host' ? 'live.enterAsHost' : 'live.enter', { liveEventId: state.id });
        position = entry.position;
        state.stream = 'live:' + state.id;
      } else {
        state.kind = 'meeting';
        state.id = options.meeting;
        state.mode = options.mode;
        state.participantId = options.participant;
        const result = await conn.send('meeting.join', {
          meetingId: state.id, participantId: options.participant, name: options.name || options.participant, mode: options.mode,
        });
        if (result.status !== 'joined') throw Object.assign(new Error('waiting for a moderator'), { name: 'waiting' });
        for (const participant of result.meeting.participants) state.participants[participant.participantId] = participant;
        state.livestream = result.meeting.livestream || null;
        position = result.position;
        state.stream = 'meeting:' + state.id;
      }
      await conn.send('stream.subscribe', { stream: state.stream, since: position });
      state.joined = true;
      $('controls').hidden = false;
      log(`joined ${state.stream} as ${state.participantId}`);
      // In turn with what events ask for: a feed published meanwhile is subscribed after the
      // first receiving session is made, not beside it (two offers at once for one peer
      // connection). A failure is recorded by serial.
      await serial(async () => {
        if (canPublish() && params.get('publish') !== '0') await whenAvailable(publish);
        await whenAvailable(receiveAll);
      }).catch(() => {});
      render();
    }

    // Media can be unavailable for a moment (the server's Janus still starting, or starting
    // again): a step that meets that is tried again every second, for half a minute.
    async function whenAvailable(step) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await step();
        } catch (error) {
          if (error.name !== 'unavailable' || attempt >= 30) throw error;
          if (attempt === 1) log(`media is unavailable (${error.message}); trying again every second`);
          await sleep(1000);
        }
      }
    }

    // MARK: The page

    function showVideo(key, stream, label, muted) {
      let figure = document.getElementById(key);
      if (!figure) {
        figure = document.createElement('figure');
        figure.id = key;
        figure.innerHTML = '<video autoplay playsinline></video><figcaption></figcaption>';
        $('videos').appendChild(figure);
      }
      const video = figure.querySelector('video');
      video.muted = muted;
      if (video.srcObject !== stream) video.srcObject = stream;
      figure.querySelector('figcaption').textContent = label;
    }

    function removeVideo(key) {
      const figure = document.getElementById(key);
      if (figure) figure.remove();
    }

    function render() {
      const list = $('participants');
      list.textContent = '';
      for (const participant of Object.values(state.participants)) {
        const item = document.createElement('li');
        item.textContent = `${participant.name} (${participant.mode})${state.talking.includes(participant.participantId) ? ' talking' : ''} `;
        if (participant.participantId !== state.participantId) {
          const invite = document.createElement('button');
          invite.textContent = 'Invite on stage';
          invite.onclick = () => serial(() => demo.invite(participant.participantId));
          item.appendChild(invite);
        }
        const pin = document.createElement('button');
        pin.textContent = state.pins[participant.participantId] && state.pins[participant.participantId].cam ? 'Unpin' : 'Pin';
        pin.onclick = () => serial(() => demo.pin(participant.participantId));
        item.appendChild(pin);
        list.appendChild(item);
      }
      $('status').textContent = state.publishing ? 'on stage' : (state.joined ? 'watching' : '');
      updateLivestream();
    }

    // What tests (and the console) use.
    window.demo = {
      join, publish, shareScreen, stats, paths, sent, livestreamStats, readClock, setQuality, measure,
      state: () => JSON.parse(JSON.stringify(state)),
      send: (op, args) => conn.send(op, args),
      changeMode: (mode) => conn.send('meeting.changeMode', { meetingId: state.id, mode }),
      invite: (participantId) => conn.send('pubsub.publish', {
        meetingId: state.id, topic: 'HOSTREQUESTED', message: 'Request for mode change your mode',
        payload: { receiverId: participantId, senderName: state.participantId, senderId: state.participantId },
      }),
      pin: (participantId, pinType = 'CAM') => conn.send(state.pins[participantId] && state.pins[participantId].cam ? 'meeting.unpin' : 'meeting.pin',
        { meetingId: state.id, participantId, pinType }),
      setMic: async (on) => { await setSending('audio', on); return conn.send('meeting.setMedia', { meetingId: state.id, micOn: on }); },
      // Stops or resumes sending a kind without a word to the server: Janus sees it stop or flow.
      setSending,
      // Stops the camera's track without a word to the server: Janus sees no more video.
      stopCameraTrack: () => { if (localStream) localStream.getVideoTracks().forEach((track) => track.stop()); },
      setCamera: async (on) => { await setSending('video', on); return conn.send('meeting.setMedia', { meetingId: state.id, webcamOn: on }); },
    };

    $('join').onsubmit = (event) => {
      event.preventDefault();
      const form = new FormData(event.target);
      const name = form.get('name') || 'guest';
      join({ token: form.get('token'), meeting: form.get('meeting'), participant: name, name, mode: form.get('mode') }).catch(fail);
    };
    $('accept').onclick = () => serial(() => answerInvite(true));
    $('decline').onclick = () => serial(() => answerInvite(false));
    $('leave').onclick = () => { stopPublishing(); stopReceiving(); conn.ws.close(1000); };
    $('mic').onclick = () => serial(async () => {
      const on = muted.audio;
      await demo.setMic(on);
      $('mic').textContent = on ? 'Mute mic' : 'Unmute mic';
    });
    $('cam').onclick = () => serial(async () => {
      const on = muted.video;
      await demo.setCamera(on);
      $('cam').textContent = on ? 'Camera off' : 'Camera on';
    });

    if (params.get('join') === '1') {
      const participant = params.get('participant') || params.get('user') || 'guest';
      join({
        token: params.get('token'), meeting: params.get('meeting') || 'demo', participant, name: params.get('name') || participant,
        mode: params.get('mode') || 'SEND_AND_RECV', live: params.get('live'), role: params.get('role'), userId: params.get('user'),
      }).catch(fail);
    }
    """#
}
