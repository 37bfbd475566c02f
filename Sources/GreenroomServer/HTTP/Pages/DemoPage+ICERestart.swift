extension DemoPage {
    /// The demo's ICE restarts, after ``stageScript``: twice a second it looks at both peer
    /// connections; one `disconnected` for 2 seconds, or `failed`, has ICE restarted on it
    /// (the sending one offers again with `iceRestart`, the same feed; the receiving one asks
    /// for a fresh offer with `media.iceRestart`), again every 10 seconds while it stays
    /// down. `state.iceRestarts` counts them.
    static let iceRestartScript = #"""
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
