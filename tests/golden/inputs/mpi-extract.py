#!/usr/bin/env python3
"""mpi-extract: write one TCP connection of a pcap as a stream file for the decoder tests.

Usage: python3 mpi-extract.py FILE.pcap                 list connections (index, ports, bytes)
       python3 mpi-extract.py FILE.pcap INDEX OUT.gz    write connection INDEX (tshark's tcp.stream)

Stream file (gzip): "MPISTRM1", u16 initiator port, u16 acceptor port, u8 saw_syn (LE), then one
record per TCP segment with payload: u8 dir (0 initiator->acceptor, 1 back; bit 7 set: a hole
of len bytes that the capture missed, no payload follows), i64 capture time in ns, u32 len,
len payload bytes. Segments are in capture order; retransmitted bytes are dropped."""
import subprocess, sys, struct, gzip, collections
def conns(pcap):
    out = subprocess.run(['tshark','-r',pcap,'-o','tcp.desegment_tcp_streams:FALSE','-T','fields',
        '-e','tcp.stream','-e','frame.time_epoch','-e','tcp.srcport','-e','tcp.dstport','-e','tcp.flags.syn',
        '-e','tcp.flags.ack','-e','tcp.seq_raw','-e','tcp.len','-e','tcp.payload'],capture_output=True,text=True,check=True).stdout
    c = collections.OrderedDict()
    for line in out.splitlines():
        f = line.split('\t')
        s = int(f[0]); t = f[1]
        sec, frac = t.split('.')
        tns = int(sec)*10**9 + int((frac+'000000000')[:9])
        sp, dp = int(f[2]), int(f[3]); syn = f[4] in ('1','True'); ack = f[5] in ('1','True')
        seq = int(f[6]); ln = int(f[7] or 0); pl = bytes.fromhex(f[8].replace(':','')) if f[8] else b''
        st = c.setdefault(s, {'ports':None,'pk':[],'next':{}, 'syn':False})
        if syn and not ack: st['ports'] = (sp, dp); st['syn'] = True
        if st['ports'] is None: st['ports'] = (sp, dp)
        d = 0 if (sp, dp) == st['ports'] else 1
        if syn: st['next'][d] = (seq + 1) & 0xffffffff; continue
        if ln == 0: continue
        nx = st['next'].get(d)
        if nx is not None and 0 < ((seq - nx) & 0xffffffff) < 0x80000000:
            st['pk'].append((d | 0x80, tns, b'', (seq - nx) & 0xffffffff))  # hole: bytes not captured
            nx = seq
        if nx is not None and seq != nx:
            # retransmission/overlap: keep only new bytes
            off = (nx - seq) & 0xffffffff
            if off >= ln: continue
            pl = pl[off:]; seq = nx
        st['next'][d] = (seq + len(pl)) & 0xffffffff
        st['pk'].append((d, tns, pl, len(pl)))
    return c
def write(path, st):
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(b'MPISTRM1' + struct.pack('<HHB', st['ports'][0], st['ports'][1], 1 if st['syn'] else 0))
        for d, t, pl, n in st['pk']:
            f.write(struct.pack('<BqI', d, t, n) + pl)
if __name__ == '__main__' and len(sys.argv) == 5:
    pass
elif __name__ == '__main__':
    pcap = sys.argv[1]
    c = conns(pcap)
    for s, st in c.items():
        b = [sum(len(p) for d,_,p,_ in st['pk'] if d == k) for k in (0,1)]
        print(s, st['ports'], b[0], b[1], (st['pk'][0][2][:24].hex() if st['pk'] else ''))
    if len(sys.argv) > 3:
        write(sys.argv[3], c[int(sys.argv[2])])


# ---------------------------------------------------------------------------------------
# An independent, whole-stream reading of the same protocols (mpi-wire.md), used to write
# the expected message lists (.expect) and to find user-data spans that may be zeroed to
# keep the inputs small (zeroed data change no header, length or time).

def ompi_messages(s0, s1):
    """Yield (dir, cid, comm_src, tag, bytes, proto, data_spans) for an ob1 TCP connection."""
    streams = [s0, s1]
    out, spans = [], []
    pend = {}   # (dir, src_req) -> dict
    puts = []   # (dir, ptr, size, key)
    events = []
    for d in (0, 1):
        b = streams[d]
        i = 24
        while i + 8 <= len(b):
            tag, ty, cnt, sz = struct.unpack_from('<BBHI', b, i)
            if ty == 2:
                addr = struct.unpack_from('<Q', b, i + 8)[0]
                events.append((d, i, 'putdata', addr, sz, i + 8 + 16 * cnt))
                i += 8 + 16 * cnt + sz
                continue
            h = b[i + 8:i + 8 + sz]
            events.append((d, i, h[0], h, sz, i + 8))
            i += 8 + sz
    # the two directions interleave in time; order events per direction and resolve
    # control against data by trying the data direction after the control direction
    def key(e):
        return (e[0], e[1])
    done = []
    ctl = [e for e in events if e[2] in (0x44, 0x48)]
    for e in ctl:   # PUT controls name the buffer; ACKs carry no data
        d, _, t, h, _, _ = e
        if t == 0x48:
            req, frag, rreq, off, ptr, size = struct.unpack_from('<QQQQQQ', h, 8)
            puts.append((1 - d, ptr, size, req))
    for e in sorted((e for e in events if e[2] not in (0x44, 0x48)), key=key):
        d, pos, t, h, sz, dstart = e
        if t == 0x41:
            ctx, src, tg = struct.unpack_from('<HiI', h, 2)
            tg = struct.unpack_from('<i', h, 8)[0]
            out.append((d, ctx, src, tg, sz - 14, 'eager'))
            if sz - 14 > 64:
                spans.append((d, dstart + 14 + 32, dstart + sz - 16))
        elif t == 0x42:
            ctx, src = struct.unpack_from('<Hi', h, 2)
            tg = struct.unpack_from('<i', h, 8)[0]
            ln, sreq = struct.unpack_from('<QQ', h, 16)
            m = {'d': d, 'ctx': ctx, 'src': src, 'tag': tg, 'len': ln, 'got': sz - 32, 'proto': None}
            if sz - 32 > 64:
                spans.append((d, dstart + 32 + 32, dstart + sz - 16))
            if m['got'] >= ln:
                out.append((d, ctx, src, tg, ln, 'sync'))
            else:
                pend[(d, sreq)] = m
        elif t == 0x46:
            sreq = struct.unpack_from('<Q', h, 16)[0]
            m = pend[(d, sreq)]
            m['got'] += sz - 32
            m['proto'] = 'rndv-frag'
            if sz - 32 > 64:
                spans.append((d, dstart + 32 + 32, dstart + sz - 16))
            if m['got'] >= m['len']:
                out.append((d, m['ctx'], m['src'], m['tag'], m['len'], m['proto']))
                del pend[(d, sreq)]
        elif t == 'putdata':
            addr = h
            for (pd, ptr, size, req) in puts:
                if pd == d and ptr <= addr < ptr + size and (d, req) in pend:
                    m = pend[(d, req)]
                    m['got'] += sz
                    m['proto'] = 'rndv-put'
                    spans.append((d, dstart + 32, dstart + sz - 16))
                    if m['got'] >= m['len']:
                        out.append((d, m['ctx'], m['src'], m['tag'], m['len'], m['proto']))
                        del pend[(d, req)]
                    break
    return out, spans


def ucx_messages(s0, s1, layout='mpich'):
    """Yield messages of a UCX TCP connection (dir, cid, comm_src, tag, bytes, proto); the
    UCP tag read by MPICH's layout or by Open MPI 4.1 pml ucx's (layout 'ompi')."""
    out, spans, pend, rtr = [], [], {}, []
    recs = []
    for d, b in ((0, s0), (1, s1)):
        i = 8 if b[:8] == bytes.fromhex('78563412bebafeca') else 0
        while i + 5 <= len(b):
            am, ln = struct.unpack_from('<BI', b, i)
            body = b[i + 5:i + 5 + ln]
            extra = struct.unpack_from('<QQI', body)[1] if am == 33 else 0
            recs.append((d, i, am, body, ln, extra))
            i += 5 + ln + extra
    for d, i, am, body, ln, extra in recs:
        if am == 11:
            sreq, rreq, addr, size, off = struct.unpack_from('<QQQQQ', body)
            rtr.append((1 - d, sreq, rreq, addr, size))
    def tagsplit(t):
        if layout == 'ompi':    # pml_ucx_request.h: tag (24) << 40 | rank (20) << 20 | cid (20)
            t24 = t >> 40
            return (t & 0xfffff, (t >> 20) & 0xfffff, t24 - (1 << 24) if t24 & 0x800000 else t24)
        return (t >> 48, (t >> 32) & 0xffff, struct.unpack('<i', struct.pack('<I', t & 0xffffffff))[0])
    for d, i, am, body, ln, extra in sorted(recs, key=lambda r: (r[0], r[1])):
        if am in (2, 6):
            hl = 8 if am == 2 else 24
            t = struct.unpack_from('<Q', body)[0]
            out.append((d,) + tagsplit(t) + (ln - hl, 'eager' if am == 2 else 'sync'))
            if ln - hl > 64:
                spans.append((d, i + 5 + hl + 32, i + 5 + ln - 16))
        elif am in (3, 7):    # EAGER_FIRST / EAGER_SYNC_FIRST: tag, total, msg id
            t, total, mid = struct.unpack_from('<QQQ', body)
            hl = 24 if am == 3 else 40
            pend[(d, 'm', mid)] = {'t': t, 'len': total, 'got': ln - hl,
                                   'proto': 'eager' if am == 3 else 'sync'}
            if ln - hl > 64:
                spans.append((d, i + 5 + hl + 32, i + 5 + ln - 16))
        elif am == 4:          # EAGER_MIDDLE: msg id, offset
            mid = struct.unpack_from('<Q', body)[0]
            if ln - 16 > 64:
                spans.append((d, i + 5 + 16 + 32, i + 5 + ln - 16))
            m = pend.get((d, 'm', mid))
            if m is None:
                continue
            m['got'] += ln - 16
            if m['got'] >= m['len']:
                out.append((d,) + tagsplit(m['t']) + (m['len'], m['proto']))
                del pend[(d, 'm', mid)]
        elif am == 9:
            t, ep, sreq, addr, size = struct.unpack_from('<QQQQQ', body)
            pend[(d, sreq)] = {'t': t, 'len': size, 'got': 0, 'proto': None, 'rreq': None}
            for k, (rd, s, rr, a, sz) in enumerate(rtr):   # request ids are reused: take
                if rd == d and s == sreq:                     # the first RTR not yet used
                    pend[(d, sreq)]['rreq'] = rr
                    pend[(d, sreq)]['addr'] = (a, sz)
                    del rtr[k]
                    break
        elif am in (12, 33):
            if am == 12:
                rreq = struct.unpack_from('<Q', body)[0]
                cand = [k for k, m in pend.items() if k[0] == d and m['rreq'] == rreq]
                n = ln - 16
                if n > 64:
                    spans.append((d, i + 5 + 16 + 32, i + 5 + ln - 16))
            else:
                addr, n, sn = struct.unpack_from('<QQI', body)
                cand = [k for k, m in pend.items() if k[0] == d and 'addr' in m
                        and m['addr'][0] <= addr < m['addr'][0] + m['addr'][1]] if n else []
                if n > 64:
                    spans.append((d, i + 25 + 32, i + 25 + n - 16))
            if not cand:
                continue
            m = pend[cand[-1]]
            m['got'] += n
            m['proto'] = 'rndv-frag' if am == 12 else 'rndv-put'
            if m['got'] >= m['len']:
                out.append((d,) + tagsplit(m['t']) + (m['len'], m['proto']))
                del pend[cand[-1]]
    return out, spans


def whole(st):
    return [b''.join(p for d, _, p, _ in st['pk'] if d == k) for k in (0, 1)]


def zero_spans(st, spans):
    """Zero the byte ranges spans (dir, start, end) of the stream offsets, in place."""
    off = [0, 0]
    pk = []
    for d, t, pl, n in st['pk']:
        if d & 0x80:
            off[d & 1] += n
            pk.append((d, t, pl, n))
            continue
        a = bytearray(pl)
        for sd, s, e in spans:
            if sd == d and e > s:
                lo, hi = max(s, off[d]), min(e, off[d] + len(pl))
                if lo < hi:
                    a[lo - off[d]:hi - off[d]] = bytes(hi - lo)
        off[d] += len(pl)
        pk.append((d, t, bytes(a), n))
    st['pk'] = pk


def main2(argv):
    """mpi-extract.py FILE.pcap INDEX OUT.gz ompi|ucx|ompi-ucx: also zero user data and write OUT's
    expected messages to OUT minus .strm.gz plus .expect (dir cid comm_src tag bytes proto)."""
    c = conns(argv[1])
    st = c[int(argv[2])]
    s0, s1 = whole(st)
    if argv[4] == 'ompi':
        msgs, spans = ompi_messages(s0, s1)
    else:
        msgs, spans = ucx_messages(s0, s1, 'ompi' if argv[4] == 'ompi-ucx' else 'mpich')
    zero_spans(st, spans)
    write(argv[3], st)
    exp = argv[3].replace('.strm.gz', '.expect')
    with open(exp, 'w') as f:
        f.write('# dir cid comm_src tag bytes proto (written by mpi-extract.py from %s)\n' % argv[1].split('/')[-1])
        for m in msgs:
            f.write('%d %d %d %d %d %s\n' % m)
    print(len(msgs), 'messages ->', exp)


if __name__ == '__main__' and len(sys.argv) == 5:
    main2(sys.argv)
