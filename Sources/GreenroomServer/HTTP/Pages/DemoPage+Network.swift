extension DemoPage {
    /// The demo's network part, after ``stageScript``: what each connection receives and the
    /// path it takes (`stats`, `paths`), simulcast and the layer received, and ICE restarts:
    /// twice a second it looks at both peer connections; one `disconnected` for 2 seconds,
    /// or `failed`, has ICE restarted on it
    /// (the sending one offers again with `iceRestart`, the same feed; the receiving one asks
    /// for a fresh offer with `media.iceRestart`), again every 10 seconds while it stays
    /// down. `state.iceRestarts` counts them. Every 2 seconds it reports what its connections
    /// measure (`media.reportStats`), and keeps each participant's connection quality from
    /// the `media.connectionQuality` signals in `state.qualities`.
    static let networkScript = #"""
    async function stats() {
      const feeds = {};
      if (subPc) {
        const report = await subPc.getStats();
        report.forEach((entry) => {
          if (entry.type !== 'inbound-rtp') return;
          const feedId = state.midToFeed[entry.mid] ?? trackToFeed[entry.trackIdentifier];
          if (feedId === undefined || !state.subscribed[feedId]) return;
          const feed = feeds[feedId] || (feeds[feedId] = { participantId: state.feeds[feedId] && state.feeds[feedId].participantId, framesDecoded: 0, audioBytes: 0 });
          if (entry.kind === 'video') feed.framesDecoded = entry.framesDecoded || 0;
          if (entry.kind === 'audio') feed.audioBytes = entry.bytesReceived || 0;
        });
      }
      return feeds;
    }

    // The path each connection's media takes: its selected candidate pair's local and
    // remote candidate types (host, srflx, prflx, relay) and the local one's protocol.
    async function paths() {
      const result = {};
      for (const [name, pc] of [['publish', pubPc], ['receive', subPc]]) {
        if (!pc) continue;
        const report = await pc.getStats();
        let pair = null;
        report.forEach((entry) => {
          if (entry.type === 'transport' && entry.selectedCandidatePairId) pair = report.get(entry.selectedCandidatePairId);
        });
        if (!pair) continue;
        const local = report.get(pair.localCandidateId), remote = report.get(pair.remoteCandidateId);
        result[name] = {
          local: local && local.candidateType, remote: remote && remote.candidateType,
          relayProtocol: local && local.relayProtocol, protocol: local && local.protocol, port: local && local.port, state: pc.iceConnectionState,
        };
      }
      return result;
    }

    // ?simulcast=1 sends the camera in three layers (full, half and a quarter size; Janus
    // forwards one to each receiver, as it chooses with media.configure); ?width= and
    // ?height= size the camera (320×240 by default).
    function cameraSize() {
      return { width: Number(params.get('width')) || 320, height: Number(params.get('height')) || 240 };
    }
    function sendOptions(track) {
      const options = { direction: 'sendonly', streams: [localStream] };
      if (track.kind === 'video' && params.get('simulcast') === '1') {
        // Largest first: Janus reads the offer's rids from high to low.
        options.sendEncodings = [{ rid: 'h' }, { rid: 'm', scaleResolutionDownBy: 2 }, { rid: 'l', scaleResolutionDownBy: 4 }];
      }
      return options;
    }
    // What the sending connection sends: each video layer's rid, size, frames and what
    // limits it (cpu, bandwidth), for tests.
    async function sent() {
      const layers = [];
      if (pubPc) (await pubPc.getStats()).forEach((entry) => {
        if (entry.type === 'outbound-rtp' && entry.kind === 'video') {
          layers.push({ rid: entry.rid || null, width: entry.frameWidth || 0, frames: entry.framesSent || 0, limit: entry.qualityLimitationReason || null });
        }
      });
      return layers;
    }
    // Which layer of a feed this page receives: low, medium, high, or auto.
    function setQuality(feedId, quality) {
      return conn.send('media.configure', { stream: state.stream, feed: feedId, quality });
    }

    // Connection quality: what both connections counted since the report before.
    state.qualities = {};
    function onSignal(signal) {
      if (signal.type === 'media.connectionQuality' && signal.stream === state.stream) {
        state.qualities[signal.data.participantId] = signal.data.quality;
        log(`${signal.data.participantId}'s connection is ${signal.data.quality}`);
      }
    }
    // What the connections counted since they were made (the SDK's MediaTransportStats):
    // packets received and lost, the worst loss the far end reports of what is sent, the
    // selected pair's round trip, the worst jitter received, and whether ICE is up.
    async function measure(connections = [pubPc, subPc]) {
      const totals = { received: 0, lost: 0, sentLoss: null, roundTrip: null, jitter: null, connected: true };
      for (const pc of connections) {
        if (!pc) continue;
        if (pc.iceConnectionState === 'disconnected' || pc.iceConnectionState === 'failed') totals.connected = false;
        // Being restarted: its checks run again, and no media flows until they succeed.
        if ((pc === pubPc && iceDown.publisher) || (pc === subPc && iceDown.subscriber)) totals.connected = false;
        const report = await pc.getStats();
        report.forEach((entry) => {
          if (entry.type === 'inbound-rtp') {
            totals.received += entry.packetsReceived || 0;
            totals.lost += Math.max(entry.packetsLost || 0, 0);
            if (entry.jitter !== undefined) totals.jitter = Math.max(totals.jitter || 0, entry.jitter);
          } else if (entry.type === 'remote-inbound-rtp' && entry.fractionLost !== undefined) {
            totals.sentLoss = Math.max(totals.sentLoss || 0, entry.fractionLost);
          } else if (entry.type === 'candidate-pair' && entry.nominated && entry.currentRoundTripTime !== undefined) {
            totals.roundTrip = Math.max(totals.roundTrip || 0, entry.currentRoundTripTime);
          }
        });
      }
      return totals;
    }
    let counted = { received: 0, lost: 0 };
    setInterval(async () => {
      if (!state.connected || !(pubPc || subPc)) return;
      try {
        const totals = await measure();
        const received = totals.received - counted.received, lost = totals.lost - counted.lost;
        counted = totals;
        const losses = [totals.sentLoss];
        if (received > 0 && lost >= 0) losses.push(lost / (received + lost));
        const known = losses.filter((value) => value !== null);
        const args = { stream: state.stream, connected: totals.connected };
        if (known.length) args.packetLoss = Math.min(Math.max(...known), 1);
        if (totals.roundTrip !== null) args.roundTrip = Math.min(totals.roundTrip, 600);
        if (totals.jitter !== null) args.jitter = Math.min(totals.jitter, 600);
        await conn.send('media.reportStats', args);
      } catch (error) {
        if (error.name !== 'notFound' && error.name !== 'connectionLost') log(`cannot report stats: ${error.message}`);
      }
    }, 2000);

    state.iceRestarts = 0;
    const iceDown = { publisher: null, subscriber: null }, iceTried = { publisher: 0, subscriber: 0 };

    async function restartPublisherICE() {
      if (!pubPc || !state.publishing) return;
      pubPc.setConfiguration(Object.assign(pubPc.getConfiguration(), await peerConfiguration()));
      await pubPc.setLocalDescription(await pubPc.createOffer({ iceRestart: true }));
      await gathered(pubPc);
      const args = { stream: state.stream, jsep: { type: 'offer', sdp: pubPc.localDescription.sdp } };
      if (state.sharing) args.shares = [state.sharing];
      const result = await conn.send('media.publish', args);
      await pubPc.setRemoteDescription(result.jsep);
      state.iceRestarts += 1;
      log(`ICE restarted on feed ${result.feed.feedId}`);
    }

    async function restartSubscriberICE() {
      if (!subPc) return;
      subPc.setConfiguration(Object.assign(subPc.getConfiguration(), await peerConfiguration()));
      await negotiate(await conn.send('media.iceRestart', { stream: state.stream }));
      state.iceRestarts += 1;
      log('ICE restarted on the receiving connection');
    }

    setInterval(() => {
      if (!state.connected) return;
      for (const [role, pc, restart] of [['publisher', pubPc, restartPublisherICE], ['subscriber', subPc, restartSubscriberICE]]) {
        const iceState = pc ? pc.iceConnectionState : 'closed';
        if (iceState !== 'disconnected' && iceState !== 'failed' && iceState !== 'checking') iceDown[role] = null;
        if (iceState !== 'disconnected' && iceState !== 'failed') continue;
        const now = Date.now();
        iceDown[role] = iceDown[role] || now;
        if ((iceState === 'failed' || now - iceDown[role] >= 2000) && now - iceTried[role] >= 10000) {
          iceTried[role] = now;
          serial(restart);
        }
      }
    }, 500);
    """#
}
