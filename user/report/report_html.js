/*
 * rocetop report --html: the page's script (report_html.c inlines it).
 * It reads two JSON blocks: #rt-report, the report's own --json document
 * (summary, paused time, host pairs: shown as they are, each number in an
 * element whose data-path names where it sits in that document), and
 * #rt-data (report_viz.h: each host's points, the flows drawn, the ranked
 * episodes). Charts are dygraphs (inlined above this script), on one time
 * axis: zooming or panning one moves all. window.rocetop is for tests.
 */
(function () {
	'use strict';
	var R = JSON.parse(document.getElementById('rt-report').textContent);
	var D = JSON.parse(document.getElementById('rt-data').textContent);
	var multi = Array.isArray(R.files);
	var app = document.getElementById('app');
	var charts = [], syncing = false, lanesDiv = null, lanes = [], full = null, current = null;
	var TOP_EPISODES = 10;

	function el(tag, attrs, kids) {
		var e = document.createElement(tag);
		Object.keys(attrs || {}).forEach(function (k) {
			if (k === 'text')
				e.textContent = attrs[k];
			else if (k === 'onclick')
				e.addEventListener('click', attrs[k]);
			else
				e.setAttribute(k, attrs[k]);
		});
		(kids || []).forEach(function (c) {
			if (c !== null && c !== undefined)
				e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
		});
		return e;
	}
	function utc(sec) {
		var d = new Date(sec * 1000);
		return isNaN(d) ? '?' : d.toISOString().replace('T', ' ').replace('Z', ' UTC');
	}
	/*
	 * Numbers in the forms of the text report (user/core/fmt.c): C's printf
	 * rounds an exact half to even where toFixed rounds it up (112.5 s is
	 * "112 s"), so a tie is settled on the exact decimal expansion.
	 */
	function fixed(v, d) {
		var t = v.toFixed(d), x = v.toFixed(Math.min(100, d + 80)), i = x.indexOf('.') + d + (d ? 1 : 0);
		var rest = x.slice(d ? i : i + 1);
		if (/^50*$/.test(rest) && +x.charAt(i - 1) % 2 === 0)
			return x.slice(0, i);
		return t;
	}
	/* rt_fmt_dur: three significant digits and s, ms, us or ns; from 1000 s whole seconds */
	function dur(secs) {
		var units = ['s', 'ms', 'us', 'ns'], v = secs, u = 0;
		if (!(secs > 0))
			return '0 s';
		if (v >= 999.5)
			return fixed(v, 0) + ' s';
		while (v < 0.9995 && u < 3) {
			v *= 1000;
			u++;
		}
		return fixed(v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0) + ' ' + units[u];
	}
	/* rt_fmt_share: a share 0..1 as a percentage */
	function share(v) { return fixed(100 * v, 1) + '%'; }
	/* rt_fmt_peak: a finding's peak with its unit */
	function peak(v, unit) {
		if (unit === 'share')
			return share(v);
		if (unit === 'bit error rate')
			return v.toExponential(2).replace(/e([+-])(\d)$/, function (m, sg, d) { return 'e' + sg + '0' + d; }) +
				' ' + unit;
		return unit ? fixed(v, 0) + ' ' + unit : String(v);
	}
	/* A value of the report's JSON in its form (count: as it is; duration;
	 * Mb/s), where it sits, and its exact value (data-value) */
	var FORMS = { count: String, duration: dur, mbps: function (v) { return v + ' Mb/s'; } };
	function num(path, v, form) {
		return el('span', { 'class': 'num', 'data-path': path, 'data-value': String(v),
				    text: FORMS[form || 'count'](v) });
	}
	function fileReport(i) { return multi ? R.files[i] : R; }
	function filePath(i, rest) { return (multi ? 'files.' + i + '.' : '') + rest; }
	function table(head, rows, cls) {
		return el('table', { 'class': cls || '' }, [
			el('thead', {}, [el('tr', {}, head.map(function (h) { return el('th', { text: h }); }))]),
			el('tbody', {}, rows)]);
	}
	function td(x) { return el('td', {}, [typeof x === 'object' ? x : String(x)]); }
	function section(id, title) {
		var s = el('section', { id: id }, [el('h2', { text: title })]);
		app.appendChild(s);
		return s;
	}

	/* ---- the shared time axis: the first host's clock (the report's times
	 * are on it; the series' times had each host's offset added) ---- */
	function hostStart(i) { return fileReport(i).start * 1000; }
	function hostEnd(i) { return fileReport(i).end * 1000; }
	function fullRange() {
		var a = Infinity, b = -Infinity;
		D.hosts.forEach(function (h, i) { a = Math.min(a, hostStart(i)); b = Math.max(b, hostEnd(i)); });
		if (!(b > a))
			b = a + 1000;
		return [a, b];
	}
	function setRange(a, b, except) {
		current = [a, b];
		syncing = true;
		charts.forEach(function (g) {
			if (g !== except)
				g.updateOptions({ dateWindow: [a, b] });
		});
		syncing = false;
		drawLanes();
	}
	function onDraw(g, initial) {
		if (initial || syncing)
			return;
		var r = g.xAxisRange();
		if (!current || r[0] !== current[0] || r[1] !== current[1])
			setRange(r[0], r[1], g);
	}
	function epTime(e) {
		return [e.start * 1000, e.end * 1000];
	}
	function zoomTo(i) {
		var e = D.episodes[i], t = epTime(e), h = D.hosts[e.host];
		var step = (hostEnd(e.host) - hostStart(e.host)) / Math.max(1, h.intervals);
		var pad = Math.max((t[1] - t[0]) * 0.25, step * h.k / 2);
		setRange(t[0] - pad, t[1] + pad, null);
		lanes.forEach(function (l) { l.bars.forEach(function (b) { b.el.classList.toggle('sel', b.ep === i); }); });
		var tl = document.getElementById('timeline');
		if (tl && tl.scrollIntoView)
			tl.scrollIntoView();
	}

	/* ---- charts ---- */
	/* A point of several intervals: its greatest value drawn, so that a
	 * one-interval spike shows, over the band from its least to its greatest
	 * (the mean is in the data, window.rocetop.data). */
	function seriesAt(h, s, i) {
		return h.k === 1 ? s.v[i] : [s.min[i], s.max[i], s.max[i]];
	}
	/* dygraphs inserts a title and a y label as markup: a name from a file
	 * (a host label, a flow) goes in as text. */
	function esc(s) {
		return String(s).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; });
	}
	function chart(parent, title, hi, list, ylabel) {
		var h = D.hosts[hi], rows = [], div = el('div', { 'class': 'chart' });
		if (!list.length)
			return null;
		for (var i = 0; i < h.points; i++) {
			var row = [new Date(D.base_ms + h.t[i])];
			list.forEach(function (x) { row.push(seriesAt(h, x.s, i)); });
			rows.push(row);
		}
		/* the legend in a box of its own below the chart, never over its
		 * lines or its axis labels, however many series there are */
		var legend = el('div', { 'class': 'legend' });
		parent.appendChild(div);
		parent.appendChild(legend);
		var g = new Dygraph(div, rows, {
			labels: ['time'].concat(list.map(function (x) { return x.name; })),
			title: esc(title), ylabel: esc(ylabel), labelsUTC: true, stepPlot: true, customBars: h.k > 1,
			legend: 'always', labelsDiv: legend, labelsSeparateLines: false, height: 220,
			dateWindow: current, drawCallback: onDraw, includeZero: true,
			yLabelWidth: 16, axes: { y: { axisLabelWidth: 64 } },
		});
		g.rtLegend = legend;
		g.rtHost = hi;
		g.rtTitle = title;
		charts.push(g);
		return g;
	}
	/* A chart of the probed peers' timelines (their own times, one series a
	 * peer, a gap where a peer has no value): key "net" or "lost". */
	function probeChart(parent, title, hi, key, ylabel) {
		var h = D.hosts[hi], at = {}, rows = [], div = el('div', { 'class': 'chart' });
		h.probes.forEach(function (p, pi) {
			p.t.forEach(function (t, i) {
				if (!at[t])
					at[t] = h.probes.map(function () { return null; });
				at[t][pi] = p[key][i];
			});
		});
		Object.keys(at).map(Number).sort(function (a, b) { return a - b; }).forEach(function (t) {
			rows.push([new Date(D.base_ms + t)].concat(at[t]));
		});
		if (!rows.length)
			return null;
		var legend = el('div', { 'class': 'legend' });
		parent.appendChild(div);
		parent.appendChild(legend);
		/* dygraphs escapes the series' names in its legend (a peer's name is from a file) */
		var g = new Dygraph(div, rows, {
			labels: ['time'].concat(h.probes.map(function (p) { return p.name; })),
			title: esc(title), ylabel: esc(ylabel), labelsUTC: true, stepPlot: true, connectSeparatedPoints: false,
			legend: 'always', labelsDiv: legend, labelsSeparateLines: false, height: 220,
			dateWindow: current, drawCallback: onDraw, includeZero: true,
			yLabelWidth: 16, axes: { y: { axisLabelWidth: 64 } },
		});
		g.rtLegend = legend;
		g.rtHost = hi;
		g.rtTitle = title;
		g.rtProbe = true;
		charts.push(g);
		return g;
	}
	function probes() {
		var rows = [], eps = [];
		D.hosts.forEach(function (h, i) {
			var p = fileReport(i).probes;
			if (!p)
				return;
			p.rows.forEach(function (r) {
				rows.push(el('tr', { 'class': 'probe' }, [td(h.label), td(r.peer), td(r.addr), td(r.path),
					td('0x' + r.flow_label.toString(16)), td(r.udp_sport), td(r.size), td(r.sent), td(r.lost),
					td(fixed(r.loss_pct, 2) + '%'), td(r.rtt_p50_us < 0 ? '-' : fixed(r.rtt_p50_us, 1) + ' us'),
					td(r.net_p50_us < 0 ? '-' : fixed(r.net_p50_us, 1) + ' us'),
					td(r.resp_p50_us < 0 ? '-' : fixed(r.resp_p50_us, 1) + ' us'), td(r.clock)]));
			});
			p.episodes.forEach(function (e) {
				eps.push(el('li', { 'class': 'probe-ep', text: h.label + ': ' + e.rule + ' ' + utc(e.start) + ' .. ' +
					utc(e.end) + ': ' + e.evidence }));
			});
		});
		if (!rows.length)
			return;
		var s = section('probes', 'Probes (per peer, path and size over the run)');
		s.appendChild(table(['host', 'peer', 'address', 'path', 'flow label', 'UDP sport', 'size', 'sent', 'lost',
				     'loss', 'RTT p50', 'network p50', 'responder p50', 'clock'], rows, 'probes'));
		s.appendChild(eps.length ? el('ul', {}, eps) : el('p', { text: 'No path lost, slowed or stalled.' }));
	}
	function rates(obj) {
		return Object.keys(obj).map(function (k) { return { name: k, s: obj[k] }; });
	}
	function nonzero(s) {
		var a = s.v || s.max;
		for (var i = 0; i < a.length; i++)
			if (a[i] !== 0)
				return true;
		return false;
	}

	/* ---- the page ---- */
	function header() {
		app.appendChild(el('h1', { text: 'rocetop report' }));
		var rows = D.hosts.map(function (h, i) {
			var f = fileReport(i);
			return el('tr', {}, [td(h.label), td(f.file), td(h.kind), td(f.start_utc), td(f.end_utc),
					     td(num(filePath(i, 'duration'), f.duration, 'duration')),
					     td(num(filePath(i, 'intervals'), f.intervals)),
					     td(h.k === 1 ? 'one interval' : h.k + ' intervals (drawn: the greatest, over a band down to the least)')]);
		});
		app.appendChild(table(['host', 'file', 'kind', 'start', 'end', 'length', 'intervals', 'a point is'],
				      rows, 'hosts'));
		app.appendChild(el('p', { 'class': 'offsets', id: 'clock-offsets', text: D.hosts.length > 1 ?
			'Clock offsets, estimated from the flows hosts share; every time is on ' + D.hosts[0].label +
			"'s clock: " + D.hosts.slice(1).map(function (h) { return h.label + ' ' + h.clock; }).join('; ') + '.' :
			'One host: its own clock.' }));
	}
	function verdict() {
		var s = section('verdict', 'Verdict'), eps = D.episodes;
		var n = eps.length;
		s.appendChild(el('p', {}, [el('span', { id: 'episode-count', text: String(n) }),
			' episode' + (n === 1 ? '' : 's') + (n ? ', the most severe and longest first:' : ': no rule matched.')]));
		if (!n)
			return;
		var rows = [];
		eps.forEach(function (e, i) {
			var a = el('a', { href: '#ep-' + i, 'class': 'ep-link', 'data-ep': String(i), text: e.rule,
					  onclick: function (ev) { ev.preventDefault(); zoomTo(i); } });
			var tr = el('tr', { id: 'ep-' + i, 'class': 'ep sev-' + e.severity + (i >= TOP_EPISODES ? ' more' : ''),
					    'data-ep': String(i) }, [
				td(a), td(el('span', { 'class': 'sev', text: e.severity })), td(D.hosts[e.host].label),
				td(e.subject),
				td(el('span', { 'class': 'ep-start', title: String(e.start), text: utc(e.start) })),
				td(el('span', { 'class': 'ep-dur', title: String(e.end - e.start), 'data-value': String(e.end - e.start),
						 text: dur(e.end - e.start) })),
				td(el('span', { 'class': 'ep-peak', 'data-value': String(e.peak), 'data-unit': e.peak_unit,
						 text: peak(e.peak, e.peak_unit) })),
				td(el('div', {}, [el('div', { 'class': 'ev', text: e.evidence }),
						  el('div', { 'class': 'next', text: 'next: ' + e.next })]))]);
			rows.push(tr);
		});
		var t = table(['rule', 'severity', 'host', 'subject', 'start', 'length', 'peak', 'evidence, next step'],
			      rows, 'episodes');
		s.appendChild(t);
		if (n > TOP_EPISODES) {
			var b = el('button', { id: 'more-episodes', text: 'and ' + (n - TOP_EPISODES) + ' more',
					       onclick: function () { t.classList.add('all'); b.remove(); } });
			s.appendChild(b);
		}
	}
	function totals() {
		var s = section('summary', 'Totals');
		var keys = ['flows', 'pkts', 'bytes', 'ce', 'cnp', 'nak', 'rnr_nak', 'pause_frames'];
		var rows = D.hosts.map(function (h, i) {
			var t = fileReport(i).totals;
			return el('tr', {}, [td(h.label)].concat(keys.map(function (k) {
				return td(num(filePath(i, 'totals.' + k), t[k]));
			})));
		});
		s.appendChild(table(['host', 'flows', 'packets', 'bytes', 'CE', 'CNP', 'NAK', 'RNR NAK', 'pause frames'],
				    rows, 'totals'));
	}
	function laneKey(e) { return D.hosts[e.host].label + '\u0000' + e.rule + '\u0000' + e.subject; }
	function timeline() {
		var s = section('timeline', 'Timeline');
		s.appendChild(el('p', { 'class': 'hint', text: 'Drag to zoom, shift-drag to pan, double-click to see it all; ' +
			'the charts and the episodes share the axis (UTC).' }));
		lanesDiv = el('div', { id: 'lanes' });
		s.appendChild(lanesDiv);
		var byKey = {};
		D.episodes.forEach(function (e, i) {
			var k = laneKey(e);
			if (!byKey[k]) {
				byKey[k] = { label: e.rule + ' ' + e.subject + (D.hosts.length > 1 ? ' [' + D.hosts[e.host].label + ']' : ''),
					     bars: [] };
				lanes.push(byKey[k]);
			}
			byKey[k].bars.push({ ep: i });
		});
		lanes.sort(function (a, b) { return a.label < b.label ? -1 : a.label > b.label; });
		lanes.forEach(function (l) {
			var track = el('div', { 'class': 'track' });
			l.bars.forEach(function (b) {
				var e = D.episodes[b.ep];
				b.el = el('div', { 'class': 'bar sev-' + e.severity, title: e.rule + ' ' + utc(e.start) + ', ' +
						   dur(e.end - e.start) + ': ' + e.evidence, onclick: function () { zoomTo(b.ep); } });
				track.appendChild(b.el);
			});
			lanesDiv.appendChild(el('div', { 'class': 'lane' }, [el('div', { 'class': 'lane-label', text: l.label }), track]));
		});
		D.hosts.forEach(function (h, hi) {
			var box = el('div', { 'class': 'host-charts' }, [el('h3', { text: h.label })]);
			s.appendChild(box);
			chart(box, h.label + ': congestion per second', hi,
			      rates(h.tot).filter(function (x) { return x.name !== 'packets/s'; }), 'per second');
			chart(box, h.label + ': RoCE packets per second', hi,
			      rates(h.tot).filter(function (x) { return x.name === 'packets/s'; }), 'packets/s');
			if (h.pauses.length)
				chart(box, h.label + ': fraction of time paused', hi,
				      h.pauses.map(function (p) { return { name: p.name, s: p.s }; }), 'fraction');
			Object.keys(h.tot).forEach(function (r) {
				var list = h.flows.filter(function (f) { return f.top && nonzero(f.s[r]); })
					.map(function (f) { return { name: f.name, s: f.s[r] }; });
				chart(box, h.label + ': top flows, ' + r, hi, list, r);
			});
			if (h.ports.length) {
				chart(box, h.label + ': switch ports, greatest queue depth', hi,
				      h.ports.map(function (p) { return { name: p.name, s: p.depth }; }), 'bytes');
				chart(box, h.label + ': switch ports, drops/s', hi,
				      h.ports.map(function (p) { return { name: p.name, s: p.drops }; }), 'per second');
			}
			if (h.probes && h.probes.length) {
				probeChart(box, h.label + ': probes, network p50', hi, 'net', 'us');
				probeChart(box, h.label + ': probes lost per interval', hi, 'lost', 'probes');
			}
		});
	}
	function drawLanes() {
		var g = charts[0];
		if (!g || !lanesDiv)
			return;
		var r = g.xAxisRange();
		lanes.forEach(function (l) {
			l.bars.forEach(function (b) {
				var t = epTime(D.episodes[b.ep]);
				var x0 = Math.max(t[0], r[0]), x1 = Math.min(t[1], r[1]);
				if (x1 < x0) {
					b.el.style.display = 'none';
					return;
				}
				b.el.style.display = '';
				b.el.style.left = g.toDomXCoord(x0) + 'px';
				b.el.style.width = Math.max(3, g.toDomXCoord(x1) - g.toDomXCoord(x0)) + 'px';
			});
		});
	}
	function pauses() {
		var s = section('paused', 'Paused time per priority');
		var rows = [];
		D.hosts.forEach(function (h, i) {
			var f = fileReport(i);
			((f.pfc && f.pfc.priorities) || []).forEach(function (p, j) {
				var path = filePath(i, 'pfc.priorities.' + j + '.');
				var fr = f.duration > 0 ? p.seconds / f.duration : 0;
				rows.push(el('tr', {}, [td(h.label), td(p.ifname), td(p.dir), td(p.prio),
					td(num(path + 'frames', p.frames)), td(num(path + 'seconds', p.seconds, 'duration')),
					td(el('span', { 'class': 'frac', 'data-value': String(fr), text: share(fr) })),
					td(num(path + 'link_speed_mbps', p.link_speed_mbps, 'mbps')), td(p.link_speed_from)]));
			});
		});
		if (!rows.length) {
			s.appendChild(el('p', { text: 'No pause frames.' }));
			return;
		}
		s.appendChild(table(['host', 'interface', 'direction', 'priority', 'pause frames', 'paused',
				     'of the time', 'link speed', 'speed from'], rows, 'pauses'));
	}
	/* Where each priority's pause storm started: the report's tree, as it says it. */
	function origin() {
		var list = R.pause_origin || [];
		if (!list.length)
			return;
		var s = section('pause-origin', 'Where the pause storms started');
		function side(h, k) {
			return h[k + '_if'] ? h[k + '_if'] + ' from ' + utc(h[k + '_from_ns'] / 1e9) + ', ' +
				h[k + '_frames'] + ' frames' : 'none';
		}
		list.forEach(function (p) {
			var names = p.origins.map(function (o) { return o.host + ' ' + o.ifname; });
			s.appendChild(el('p', { 'class': 'po-head', text: 'Priority ' + p.prio + ': ' +
				(names.length ? 'origin ' + names.join(' and ') : 'no origin named') +
				(p.decided ? '' : ' (not decided)') }));
			var rows = p.hosts.map(function (h) {
				return el('tr', { 'class': 'po-host' }, [
					td(new Array(h.depth + 1).join('\u2003') + h.host), td(h.role), td(side(h, 'tx')),
					td(side(h, 'rx')),
					td(h.from ? h.from + ' ' + h.from_if + (h.linked ? '' : ' (by time only)') : '')]);
			});
			s.appendChild(table(['host', 'role', 'first sent', 'first received', 'received from'], rows,
					    'pause-origin'));
			s.appendChild(el('p', { 'class': 'po-why', text: 'How: ' + p.why + '.' }));
		});
	}
	/* report --tune: each host's recommendations, every field as text (a
	 * netdev's name or a command may hold markup). */
	var TUNE_FIELDS = ['kind', 'setting', 'scope', 'current', 'recommended', 'evidence', 'command', 'confidence'];
	function tuning() {
		var rows = [], asked = false, notes = [];
		D.hosts.forEach(function (h, i) {
			var f = fileReport(i);
			if (!Array.isArray(f.tuning))
				return;
			asked = true;
			if (!f.tuning_settings)
				notes.push(h.label + ': the recording carries no congestion settings (recorded without an ' +
					   'RDMA port, or by an older rocetop): only what the traffic alone shows.');
			f.tuning.forEach(function (r) {
				rows.push(el('tr', { 'class': 'tune' }, [td(h.label)].concat(TUNE_FIELDS.map(function (k) {
					return el('td', { 'class': 'tune-' + k, text: String(r[k]) });
				}))));
			});
		});
		if (!asked)
			return;
		var s = section('tuning', 'Tuning (' + rows.length + ' recommendation' + (rows.length === 1 ? '' : 's') + ')');
		notes.forEach(function (t) { s.appendChild(el('p', { 'class': 'tune-note', text: t })); });
		s.appendChild(rows.length ? table(['host'].concat(TUNE_FIELDS), rows, 'tuning') :
			      el('p', { text: 'Nothing to change: no setting the recording shows at fault.' }));
	}
	function showFlow(hi, fi) {
		var h = D.hosts[hi], f = h.flows[fi], box = document.getElementById('flow-detail');
		box.textContent = '';
		box.appendChild(el('h3', { text: h.label + ': ' + f.name }));
		if (f.throttles) {
			var t = D.hosts[f.throttles[0]].flows[f.throttles[1]];
			box.appendChild(el('p', { text: 'Its CNPs throttle ' + t.name + ' [' + D.hosts[f.throttles[0]].label + ']' }));
		}
		charts = charts.filter(function (g) {
			if (!g.rtFlow)
				return true;
			g.destroy();
			return false;
		});
		var g = chart(box, f.name, hi, rates(f.s), 'per second');
		g.rtFlow = true;
		if (box.scrollIntoView)
			box.scrollIntoView();
	}
	function flows() {
		var s = section('flows', 'Flows drawn (click one for its charts)');
		var rows = [];
		D.hosts.forEach(function (h, hi) {
			h.flows.forEach(function (f, fi) {
				rows.push(el('tr', { 'class': 'flow', 'data-host': String(hi), 'data-flow': String(fi),
						     onclick: function () { showFlow(hi, fi); } },
					     [td(h.label), td(f.name), td(f.pkts), td(f.ce), td(f.cnp), td(f.nak), td(f.rnr_nak),
					      td(f.top ? 'top' : 'CNP target')]));
			});
		});
		s.appendChild(table(['host', 'flow', 'packets', 'CE', 'CNP', 'NAK', 'RNR NAK', 'why'], rows, 'flows'));
		s.appendChild(el('div', { id: 'flow-detail' }));
	}
	function pairs() {
		var s = section('pairs', 'Host pairs');
		var list = R.host_pairs || [];
		var rows = list.map(function (p, i) {
			var path = 'host_pairs.' + i + '.';
			return el('tr', {}, [td(p.a), td(p.b), td(num(path + 'flows', p.flows)), td(num(path + 'ce', p.ce)),
					     td(num(path + 'cnp', p.cnp)), td(num(path + 'nak', p.nak)),
					     td(num(path + 'rnr_nak', p.rnr_nak))]);
		});
		s.appendChild(rows.length ? table(['host', 'host', 'flows', 'CE', 'CNP', 'NAK', 'RNR NAK'], rows, 'pairs') :
			      el('p', { text: 'No host pairs.' }));
	}

	full = fullRange();
	current = full.slice();
	header();
	verdict();
	totals();
	timeline();
	pauses();
	origin();
	tuning();
	probes();
	flows();
	pairs();
	app.appendChild(el('p', { 'class': 'foot', text: 'Made by ' + D.generator + ' with dygraphs.' }));
	drawLanes();
	window.addEventListener('resize', drawLanes);
	if (location.hash.indexOf('#ep-') === 0)
		zoomTo(+location.hash.slice(4));
	window.rocetop = { report: R, data: D, zoomTo: zoomTo, setRange: setRange,
			   range: function () { return current; }, full: full };
	Object.defineProperty(window.rocetop, 'charts', { get: function () { return charts; } });
})();
