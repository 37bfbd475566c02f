extension ConsolePage {
    /// The console's script: the REST calls with the key in `Authorization`, and one view per
    /// tab. Data is written with `textContent` only, so a nickname or a message is never
    /// read as markup. Tests drive it through `window.console_` and the elements' ids.
    static let script = #"""
    'use strict';
    const $ = (id) => document.getElementById(id);
    const keyName = 'greenroom.apiKey';
    const state = { view: 'users', streamTimer: null };

    // ---- REST with the key ------------------------------------------------------------
    class Refused extends Error {
      constructor(status, body) {
        super((body && body.error && body.error.message) || ('HTTP ' + status));
        this.status = status;
        this.code = body && body.error && body.error.name;
      }
    }
    async function api(method, path, body) {
      const headers = { 'Authorization': 'Bearer ' + sessionStorage.getItem(keyName) };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      const json = text ? JSON.parse(text) : null;
      if (!response.ok) {
        if (response.status === 401) signOut('The API key was refused: ' + new Refused(401, json).message);
        throw new Refused(response.status, json);
      }
      return json;
    }
    const q = (params) => {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') query.set(name, value);
      const text = query.toString();
      return text ? '?' + text : '';
    };

    // ---- DOM helpers ------------------------------------------------------------------
    function el(tag, attributes, ...children) {
      const node = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) {
        if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
        else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? '' : value);
      }
      for (const child of children.flat()) {
        if (child === null || child === undefined) continue;
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
      return node;
    }
    const json = (value) => el('pre', {}, value && Object.keys(value).length ? JSON.stringify(value, null, 1) : '');
    function table(columns, rows) {
      return el('table', {}, el('thead', {}, el('tr', {}, columns.map((c) => el('th', {}, c)))), el('tbody', {}, rows));
    }
    function showError(message) {
      $('error').textContent = message;
      $('error').style.display = message ? 'block' : 'none';
    }
    async function act(what, action) {
      try {
        showError('');
        await action();
      } catch (error) {
        showError(what + ': ' + error.message);
      }
    }
    function confirmThen(question, action) {
      return () => { if (window.console_.autoConfirm || confirm(question)) action(); };
    }
    /// A list with a search box and a "More" button that follows the pages' cursors.
    function pagedList(view, { search, load, columns, row }) {
      const body = el('tbody', {});
      let cursor = null;
      const more = el('button', { id: view + '-more', type: 'button', hidden: true }, 'More');
      const input = search ? el('input', { id: view + '-search', placeholder: search }) : null;
      async function fetchPage(reset) {
        if (reset) { body.replaceChildren(); cursor = null; }
        const page = await load(input ? input.value.trim() : '', cursor);
        for (const item of page.items) body.append(row(item));
        cursor = page.next || null;
        more.hidden = !cursor;
        if (!body.children.length) body.append(el('tr', {}, el('td', { colspan: columns.length, class: 'muted' }, 'Nothing here.')));
      }
      more.addEventListener('click', () => act('Loading', () => fetchPage(false)));
      const form = el('form', { onsubmit: (event) => { event.preventDefault(); act('Loading', () => fetchPage(true)); } },
        input, input ? el('button', { id: view + '-find', type: 'submit' }, 'Search') : null);
      $('view').replaceChildren(form, el('table', {}, el('thead', {}, el('tr', {}, columns.map((c) => el('th', {}, c)))), body), more);
      return act('Loading', () => fetchPage(true));
    }

    // ---- Views ------------------------------------------------------------------------
    const views = {
      users() {
        return pagedList('users', {
          search: 'Nickname starts with…',
          load: (prefix, cursor) => api('GET', '/v1/users' + q({ nicknamePrefix: prefix, limit: 20, cursor })),
          columns: ['Id', 'Nickname', 'Extra data', ''],
          row: (user) => {
            const nickname = el('input', { value: user.nickname, 'data-user': user.id, class: 'nickname' });
            const extra = el('textarea', { rows: 2, cols: 30, class: 'extra' }, JSON.stringify(user.extraData || {}));
            return el('tr', { 'data-user': user.id }, el('td', {}, user.id), el('td', {}, nickname), el('td', {}, extra), el('td', {},
              el('button', { type: 'button', class: 'save', onclick: () => act('Saving ' + user.id, async () => {
                await api('PATCH', '/v1/users/' + encodeURIComponent(user.id), { set: { nickname: nickname.value, extraData: JSON.parse(extra.value || '{}') } });
              }) }, 'Save'),
              el('button', { type: 'button', class: 'delete', onclick: confirmThen('Delete ' + user.id + '?', () => act('Deleting ' + user.id, async () => {
                await api('DELETE', '/v1/users/' + encodeURIComponent(user.id));
                views.users();
              })) }, 'Delete')));
          },
        });
      },
      channels() {
        return pagedList('channels', {
          search: 'Channel id…',
          load: async (id, cursor) => id ? { items: [await api('GET', '/v1/channels/' + encodeURIComponent(id))] }
                                         : api('GET', '/v1/channels' + q({ limit: 20, cursor })),
          columns: ['Id', 'Name', 'Members', 'Last message', ''],
          row: (channel) => el('tr', { 'data-channel': channel.id }, el('td', {}, channel.id), el('td', {}, channel.name),
            el('td', {}, channel.memberCount), el('td', {}, channel.lastMessageAt || ''),
            el('td', {}, el('button', { type: 'button', class: 'open', onclick: () => act('Opening ' + channel.id, () => openChannel(channel.id)) }, 'Open'))),
        });
      },
      live() {
        return pagedList('live', {
          search: null,
          load: (_, cursor) => api('GET', '/v1/live-events' + q({ limit: 20, cursor })),
          columns: ['Id', 'Title', 'State', 'Hosts', 'Participants', 'Custom items', ''],
          row: (event) => el('tr', { 'data-live': event.liveEventId }, el('td', {}, event.liveEventId), el('td', {}, event.title || ''),
            el('td', { class: 'state' }, event.state), el('td', {}, (event.hosts || []).map((h) => h.userId).join(', ') || (event.userIdsForHost || []).join(', ')),
            el('td', {}, event.participantCount), el('td', {}, json(event.customItems)),
            el('td', {}, event.state === 'ready' || event.state === 'ongoing'
              ? el('button', { type: 'button', class: 'end', onclick: confirmThen('End ' + event.liveEventId + '?', () => act('Ending', async () => {
                  await api('POST', '/v1/live-events/' + encodeURIComponent(event.liveEventId) + '/end');
                  views.live();
                })) }, 'End') : '')),
        });
      },
      meetings() {
        return pagedList('meetings', {
          search: null,
          load: (_, cursor) => api('GET', '/v1/meetings' + q({ limit: 20, cursor })),
          columns: ['Id', 'State', 'Participants', ''],
          row: (meeting) => el('tr', { 'data-meeting': meeting.meetingId }, el('td', {}, meeting.meetingId), el('td', { class: 'state' }, meeting.state),
            el('td', {}, el('ul', {}, (meeting.participants || []).map((p) => el('li', {}, p.participantId + ' (' + p.userId + '): ' + p.mode)))),
            el('td', {}, meeting.state === 'active'
              ? el('button', { type: 'button', class: 'end', onclick: confirmThen('End ' + meeting.meetingId + '?', () => act('Ending', async () => {
                  await api('POST', '/v1/meetings/' + encodeURIComponent(meeting.meetingId) + '/end');
                  views.meetings();
                })) }, 'End') : '')),
        });
      },
      videos() {
        return pagedList('videos', {
          search: 'Owner…',
          load: (owner, cursor) => api('GET', '/v1/videos' + q({ owner, limit: 20, cursor })),
          columns: ['Thumbnail', 'Id', 'Title', 'Owner', 'Status', ''],
          row: (video) => {
            const image = el('img', { class: 'thumb', alt: '' });
            if (video.thumbnailURL) thumbnail(video.thumbnailURL).then((url) => { image.src = url; }).catch(() => {});
            return el('tr', { 'data-video': video.id }, el('td', {}, image), el('td', {}, video.id), el('td', {}, video.title), el('td', {}, video.owner),
              el('td', {}, video.status + (video.failureReason ? ': ' + video.failureReason : '')),
              el('td', {}, el('button', { type: 'button', class: 'delete', onclick: confirmThen('Delete ' + video.id + '?', () => act('Deleting', async () => {
                await api('DELETE', '/v1/videos/' + encodeURIComponent(video.id));
                views.videos();
              })) }, 'Delete')));
          },
        });
      },
      reports() {
        return pagedList('reports', {
          search: null,
          load: (_, cursor) => api('GET', '/v1/moderation/reports' + q({ state: 'open', limit: 20, cursor })),
          columns: ['Reported', 'About', 'User', 'Reason', 'By', ''],
          row: (report) => el('tr', { 'data-report': report.id }, el('td', {}, report.createdAt), el('td', {}, report.kind),
            el('td', {}, report.userId), el('td', { class: 'reason' }, report.reason || ''), el('td', {}, report.reporterId),
            el('td', {}, el('button', { type: 'button', class: 'review', onclick: () => act('Opening ' + report.id, () => openReport(report.id)) }, 'Review'))),
        });
      },
      async connections() {
        $('view').replaceChildren(el('p', { class: 'muted' }, 'Loading…'));
        await act('Loading', async () => {
          const node = await api('GET', '/v1/connections');
          $('view').replaceChildren(el('p', {}, 'Node ', el('code', {}, node.node), ': ', node.connections.length, ' connection(s). Each node lists its own.'),
            table(['Client', 'User'], node.connections.map((c) => el('tr', {}, el('td', {}, c.clientId), el('td', {}, c.userId)))));
        });
      },
      stream() {
        const input = el('input', { id: 'stream-name', placeholder: 'app:scores', value: state.streamName || '' });
        const log = el('pre', { id: 'stream-log' });
        const form = el('form', { onsubmit: (event) => { event.preventDefault(); follow(input.value.trim(), log); } },
          el('label', {}, 'Stream ', input), el('button', { id: 'stream-follow', type: 'submit' }, 'Follow'));
        $('view').replaceChildren(form, log);
      },
    };

    async function openChannel(id) {
      const path = '/v1/channels/' + encodeURIComponent(id);
      const [channel, members, messages] = await Promise.all([api('GET', path), api('GET', path + '/members'), api('GET', path + '/messages?limit=20')]);
      $('view').replaceChildren(
        el('h2', {}, channel.name || channel.id, ' ', el('span', { class: 'muted' }, '(' + channel.id + ')')),
        el('h3', {}, 'Members'),
        table(['User', 'State', 'Operator', ''], members.map((m) => el('tr', { 'data-member': m.userId }, el('td', {}, m.userId), el('td', {}, m.state),
          el('td', {}, m.isOperator ? 'operator' : ''),
          el('td', {}, el('button', { type: 'button', class: 'remove', onclick: confirmThen('Remove ' + m.userId + '?', () => act('Removing', async () => {
            await api('DELETE', path + '/members/' + encodeURIComponent(m.userId));
            await openChannel(id);
          })) }, 'Remove'))))),
        el('h3', {}, 'Recent messages'),
        table(['#', 'Sender', 'Text', 'Sent', ''], messages.map((m) => el('tr', { 'data-message': m.id, class: m.deletedAt ? 'deleted' : '' },
          el('td', {}, m.sequence), el('td', {}, m.senderId), el('td', { class: 'text' }, m.deletedAt ? '(deleted)' : m.text), el('td', {}, m.createdAt),
          el('td', {}, m.deletedAt ? '' : el('button', { type: 'button', class: 'delete', onclick: confirmThen('Delete this message?', () => act('Deleting', async () => {
            await api('DELETE', path + '/messages/' + encodeURIComponent(m.id));
            await openChannel(id);
          })) }, 'Delete'))))),
        el('button', { type: 'button', onclick: () => views.channels() }, 'Back to channels'));
    }

    /// A report with its message in context and the moderator's choices.
    async function openReport(id) {
      const detail = await api('GET', '/v1/moderation/reports/' + encodeURIComponent(id));
      const report = detail.report;
      const seconds = el('input', { id: 'report-seconds', type: 'number', min: 1, placeholder: 'until lifted', size: 10 });
      const note = el('input', { id: 'report-note', placeholder: 'note (also the ban\'s reason)', size: 30 });
      const resolve = (action, label) => el('button', { type: 'button', 'data-action': action, onclick: confirmThen(label + '?', () => act(label, async () => {
        const body = { action };
        if (seconds.value) body.seconds = Number(seconds.value);
        if (note.value.trim()) body.note = note.value.trim();
        await api('POST', '/v1/moderation/reports/' + encodeURIComponent(id) + '/resolve', body);
        await views.reports();
      })) }, label);
      const messages = detail.context.slice();
      if (detail.message) {
        const at = messages.findIndex((m) => m.sequence > detail.message.sequence);
        messages.splice(at < 0 ? messages.length : at, 0, detail.message);
      }
      const actions = report.kind === 'message'
        ? [resolve('dismiss', 'Dismiss'), resolve('deleteMessage', 'Delete the message'), resolve('muteInChannel', 'Mute ' + report.userId),
           resolve('banFromChannel', 'Ban ' + report.userId + ' from the channel'), resolve('banFromApp', 'Ban ' + report.userId + ' from the app')]
        : [resolve('dismiss', 'Dismiss'), resolve('banFromApp', 'Ban ' + report.userId + ' from the app')];
      $('view').replaceChildren(
        el('h2', {}, 'Report ', el('code', {}, report.id)),
        el('p', {}, report.reporterId, ' reported ', report.kind === 'message' ? 'a message of ' : 'the user ', el('strong', {}, report.userId),
          report.channelId ? [' in ', el('code', {}, report.channelId)] : '', ' at ', report.createdAt, report.reason ? [': “', report.reason, '”'] : '.'),
        report.kind === 'message'
          ? (detail.message ? table(['#', 'Sender', 'Text', 'Sent'], messages.map((m) => el('tr', {
              'data-message': m.id, class: (m.id === report.messageId ? 'reported ' : '') + (m.deletedAt ? 'deleted' : '') },
              el('td', {}, m.sequence), el('td', {}, m.senderId), el('td', { class: 'text' }, m.deletedAt ? '(deleted)' : m.text), el('td', {}, m.createdAt))))
            : el('p', { class: 'muted' }, 'The message or its channel is gone.'))
          : '',
        el('form', { id: 'report-actions', onsubmit: (event) => event.preventDefault() }, el('label', {}, 'Seconds ', seconds), note, actions),
        el('button', { type: 'button', onclick: () => views.reports() }, 'Back to reports'));
    }

    async function thumbnail(url) {
      const response = await fetch(url, { headers: { 'Authorization': 'Bearer ' + sessionStorage.getItem(keyName) } });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      return URL.createObjectURL(await response.blob());
    }

    /// Polls a stream's stored events once a second, from the newest 20.
    function follow(stream, log) {
      clearInterval(state.streamTimer);
      state.streamName = stream;
      let after = null;
      log.textContent = '';
      // A stream's name keeps its colon in the path (the router does not decode %3A).
      const path = '/v1/streams/' + encodeURIComponent(stream).replace(/%3A/gi, ':') + '/events';
      const tick = () => act('Following ' + stream, async () => {
        if (after === null) {
          const recent = await api('GET', path + '?after=0&limit=1000');
          after = recent.length ? recent[recent.length - 1].offset : 0;
          for (const event of recent.slice(-20)) log.append(line(event));
          return;
        }
        const events = await api('GET', path + q({ after, limit: 100 }));
        for (const event of events) { log.append(line(event)); after = event.offset; }
        log.scrollTop = log.scrollHeight;
      });
      const line = (event) => document.createTextNode(event.offset + '  ' + event.at + '  ' + event.type + '  ' + JSON.stringify(event.data) + '\n');
      tick();
      state.streamTimer = setInterval(tick, 1000);
    }

    // ---- Signing in and tabs ----------------------------------------------------------
    function show(view) {
      clearInterval(state.streamTimer);
      state.view = view;
      for (const button of document.querySelectorAll('#tabs button')) button.classList.toggle('active', button.dataset.view === view);
      showError('');
      return views[view]();
    }
    function signedIn() {
      $('signin').hidden = true;
      $('tabs').hidden = false;
      $('signout').hidden = false;
      return show(state.view);
    }
    function signOut(message) {
      sessionStorage.removeItem(keyName);
      clearInterval(state.streamTimer);
      $('view').replaceChildren();
      $('signin').hidden = false;
      $('tabs').hidden = true;
      $('signout').hidden = true;
      showError(message || '');
    }
    $('signin').addEventListener('submit', (event) => {
      event.preventDefault();
      sessionStorage.setItem(keyName, $('key').value.trim());
      $('key').value = '';
      act('Signing in', async () => {
        await api('GET', '/v1/connections');
        await signedIn();
      });
    });
    $('signout').addEventListener('click', () => signOut(''));
    for (const button of document.querySelectorAll('#tabs button')) button.addEventListener('click', () => show(button.dataset.view));

    window.console_ = { show, openChannel, openReport, autoConfirm: false, signedIn: () => !$('tabs').hidden };
    if (sessionStorage.getItem(keyName)) act('Signing in', async () => { await api('GET', '/v1/connections'); await signedIn(); });
    """#
}
