"""The kernel's TCP counters around a load run, so that a latency tail can be told apart from lost packets.

On loopback a segment is dropped when the receiving CPU's backlog queue is full
(``net.core.netdev_max_backlog``, 1,000 by default) and TCP sends it again only after its retransmission
timeout (at least 200 ms, doubling on each further loss): a request that waits that long was never
slow in the server. ``snapshot()`` before and after a run and ``delta()`` give what happened during it.
Linux only; elsewhere every counter reads as zero.
"""

from __future__ import annotations

from pathlib import Path

# (file, section, field) of /proc/net/snmp and /proc/net/netstat
_FIELDS = {
    "retransmitted": ("snmp", "Tcp", "RetransSegs"),
    "timeouts": ("netstat", "TcpExt", "TCPTimeouts"),
    "backlog_drops": ("netstat", "TcpExt", "TCPBacklogDrop"),
    "listen_drops": ("netstat", "TcpExt", "ListenDrops"),
    # a probe sent when an answer's acknowledgement is late; a DSACK back says it was a duplicate (not lost)
    "loss_probes": ("netstat", "TcpExt", "TCPLossProbes"),
    "dsack_received": ("netstat", "TcpExt", "TCPDSACKRecv"),
}


def _table(name: str) -> dict[tuple[str, str], int]:
    """``/proc/net/<name>``: pairs of lines, a header ``Section: a b c`` and its values ``Section: 1 2 3``."""
    try:
        lines = Path("/proc/net", name).read_text().splitlines()
    except OSError:
        return {}
    values: dict[tuple[str, str], int] = {}
    for header, row in zip(lines[::2], lines[1::2], strict=False):
        section, _, keys = header.partition(":")
        for key, value in zip(keys.split(), row.partition(":")[2].split(), strict=False):
            values[(section, key)] = int(value)
    return values


def _softnet_dropped() -> int:
    """Packets dropped because a CPU's input backlog was full (second column of softnet_stat, hex)."""
    try:
        rows = Path("/proc/net/softnet_stat").read_text().split("\n")
    except OSError:
        return 0
    return sum(int(row.split()[1], 16) for row in rows if row.strip())


def snapshot() -> dict[str, int]:
    tables = {name: _table(name) for name in ("snmp", "netstat")}
    counters = {label: tables[file].get((section, key), 0) for label, (file, section, key) in _FIELDS.items()}
    counters["softnet_dropped"] = _softnet_dropped()
    return counters


def delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {key: after[key] - before.get(key, 0) for key in after}


def said(counters: dict[str, int]) -> str:
    """``retrans 0``, or ``retrans 12, timeouts 3, softnet dropped 40``: the others only when not zero."""
    parts = [f"retrans {counters.get('retransmitted', 0)}"]
    others = {key: value for key, value in counters.items() if value and key != "retransmitted"}
    parts += [f"{key.replace('_', ' ')} {value}" for key, value in others.items()]
    return ", ".join(parts)
