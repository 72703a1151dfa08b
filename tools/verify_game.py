#!/usr/bin/env python3
"""Independent verifier of steward's committed-seed dice (docs/dice.md), standard library only.

It shares no code with steward: from the files of a game directory alone it checks the hash
chain of the turns, that the revealed seed matches the commitment published in turn 0, that the
start's contributions are the phrases of the join turns (v2: in car-number order, none from a
bot), derives the dice key, and re-derives every roll (label, die, face, value); each gear
ordered must have its die rolled, and each roll an event reports must be in the turn's rolls.
Without a seed nothing about the dice is checked: it says NOT VERIFIED and exits 1.

From a player's mails (a Maildir folder or an mbox file), it takes the FIRST commitment mailed,
checks every later one and the revealed seed against it, re-derives every mailed roll from the
mailed phrases and, with --games, checks every mailed receipt against the game's turn files.

    python3 tools/verify_game.py GAME_DIR [--seed HEX]        # exit 0: all agree, 1: not, 3: no such game
    python3 tools/verify_game.py --mail PATH [--games DIR]    # the same from a player's mails
    python3 tools/verify_game.py --vectors docs/dice.md        # the test vectors of docs/dice.md

Needs Python 3.11 or later (tomllib).
"""

import hashlib
import json
import os
import re
import struct
import sys
import tomllib
from email import policy
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

DOMAIN = b"steward-dice-v1"
KEY_DOMAIN = b"steward-key-v1"
COMMIT_DOMAIN_V2 = b"steward-commit-v2"
KEY_DOMAIN_V2 = b"steward-key-v2"
LINE_DOMAIN_V3 = b"steward-line-v3"
SCHEMES = ("steward-dice-v1", "steward-dice-v2", "steward-dice-v3")
# v2 and v3 share the commitment and the key; v3's labels carry the line of decisions.
BY_NUMBER = ("steward-dice-v2", "steward-dice-v3")

# The faces of the real dice (docs/dice.md): the gear dice are not uniform.
FACES = {
    "gear1-d4": [1, 1, 2, 2],
    "gear2-d6": [2, 3, 3, 4, 4, 4],
    "gear3-d8": [4, 5, 6, 6, 7, 7, 8, 8],
    "gear4-d12": [7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12],
    "gear5-d20": [11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20],
    "gear6-d30": [v for v in range(21, 31) for _ in range(3)],
    "black-d20": list(range(1, 21)),
}

MASK = 0xFFFFFFFF


def chacha20_block(key, counter):
    """The 16 output words of ChaCha20 block `counter` (64-bit counter, 64-bit stream 0), unrolled."""
    M = 0xFFFFFFFF
    k0, k1, k2, k3, k4, k5, k6, k7 = struct.unpack("<8I", key)
    c0, c1 = counter & M, counter >> 32
    x0, x1, x2, x3 = 0x61707865, 0x3320646E, 0x79622D32, 0x6B206574
    x4, x5, x6, x7, x8, x9, x10, x11 = k0, k1, k2, k3, k4, k5, k6, k7
    x12, x13, x14, x15 = c0, c1, 0, 0
    for _ in range(10):
        x0 = (x0 + x4) & M
        x12 ^= x0
        x12 = ((x12 << 16) & M) | (x12 >> 16)
        x8 = (x8 + x12) & M
        x4 ^= x8
        x4 = ((x4 << 12) & M) | (x4 >> 20)
        x0 = (x0 + x4) & M
        x12 ^= x0
        x12 = ((x12 << 8) & M) | (x12 >> 24)
        x8 = (x8 + x12) & M
        x4 ^= x8
        x4 = ((x4 << 7) & M) | (x4 >> 25)
        x1 = (x1 + x5) & M
        x13 ^= x1
        x13 = ((x13 << 16) & M) | (x13 >> 16)
        x9 = (x9 + x13) & M
        x5 ^= x9
        x5 = ((x5 << 12) & M) | (x5 >> 20)
        x1 = (x1 + x5) & M
        x13 ^= x1
        x13 = ((x13 << 8) & M) | (x13 >> 24)
        x9 = (x9 + x13) & M
        x5 ^= x9
        x5 = ((x5 << 7) & M) | (x5 >> 25)
        x2 = (x2 + x6) & M
        x14 ^= x2
        x14 = ((x14 << 16) & M) | (x14 >> 16)
        x10 = (x10 + x14) & M
        x6 ^= x10
        x6 = ((x6 << 12) & M) | (x6 >> 20)
        x2 = (x2 + x6) & M
        x14 ^= x2
        x14 = ((x14 << 8) & M) | (x14 >> 24)
        x10 = (x10 + x14) & M
        x6 ^= x10
        x6 = ((x6 << 7) & M) | (x6 >> 25)
        x3 = (x3 + x7) & M
        x15 ^= x3
        x15 = ((x15 << 16) & M) | (x15 >> 16)
        x11 = (x11 + x15) & M
        x7 ^= x11
        x7 = ((x7 << 12) & M) | (x7 >> 20)
        x3 = (x3 + x7) & M
        x15 ^= x3
        x15 = ((x15 << 8) & M) | (x15 >> 24)
        x11 = (x11 + x15) & M
        x7 ^= x11
        x7 = ((x7 << 7) & M) | (x7 >> 25)
        x0 = (x0 + x5) & M
        x15 ^= x0
        x15 = ((x15 << 16) & M) | (x15 >> 16)
        x10 = (x10 + x15) & M
        x5 ^= x10
        x5 = ((x5 << 12) & M) | (x5 >> 20)
        x0 = (x0 + x5) & M
        x15 ^= x0
        x15 = ((x15 << 8) & M) | (x15 >> 24)
        x10 = (x10 + x15) & M
        x5 ^= x10
        x5 = ((x5 << 7) & M) | (x5 >> 25)
        x1 = (x1 + x6) & M
        x12 ^= x1
        x12 = ((x12 << 16) & M) | (x12 >> 16)
        x11 = (x11 + x12) & M
        x6 ^= x11
        x6 = ((x6 << 12) & M) | (x6 >> 20)
        x1 = (x1 + x6) & M
        x12 ^= x1
        x12 = ((x12 << 8) & M) | (x12 >> 24)
        x11 = (x11 + x12) & M
        x6 ^= x11
        x6 = ((x6 << 7) & M) | (x6 >> 25)
        x2 = (x2 + x7) & M
        x13 ^= x2
        x13 = ((x13 << 16) & M) | (x13 >> 16)
        x8 = (x8 + x13) & M
        x7 ^= x8
        x7 = ((x7 << 12) & M) | (x7 >> 20)
        x2 = (x2 + x7) & M
        x13 ^= x2
        x13 = ((x13 << 8) & M) | (x13 >> 24)
        x8 = (x8 + x13) & M
        x7 ^= x8
        x7 = ((x7 << 7) & M) | (x7 >> 25)
        x3 = (x3 + x4) & M
        x14 ^= x3
        x14 = ((x14 << 16) & M) | (x14 >> 16)
        x9 = (x9 + x14) & M
        x4 ^= x9
        x4 = ((x4 << 12) & M) | (x4 >> 20)
        x3 = (x3 + x4) & M
        x14 ^= x3
        x14 = ((x14 << 8) & M) | (x14 >> 24)
        x9 = (x9 + x14) & M
        x4 ^= x9
        x4 = ((x4 << 7) & M) | (x4 >> 25)
    return [
        (x0 + 0x61707865) & M, (x1 + 0x3320646E) & M, (x2 + 0x79622D32) & M, (x3 + 0x6B206574) & M, (x4 + k0) & M, (x5 + k1) & M, (x6 + k2) & M, (x7 + k3) & M, (x8 + k4) & M, (x9 + k5) & M, (x10 + k6) & M, (x11 + k7) & M, (x12 + c0) & M, (x13 + c1) & M, (x14 + 0) & M, (x15 + 0) & M,
    ]


def words(seed):
    """The 32-bit words of the ChaCha20 stream keyed by `seed`, in order."""
    counter = 0
    while True:
        yield from chacha20_block(seed, counter)
        counter += 1


def roll_seed(key, label):
    return hashlib.sha256(DOMAIN + b"\x00" + key + label.encode("utf-8")).digest()


def face_index(key, label, faces, drawn=None):
    """Rejection sampling: the first word below the largest multiple of `faces` picks the face."""
    zone = (1 << 32) - ((1 << 32) % faces)
    seed = roll_seed(key, label)
    w = chacha20_block(seed, 0)[0]
    if w < zone and drawn is None:
        return w % faces  # the common case: the first word is accepted
    for w in words(seed):
        if drawn is not None:
            drawn.append(w)
        if w < zone:
            return w % faces
    raise AssertionError("unreachable")


def commitment(seed):
    return hashlib.sha256(seed).digest()


def _len_prefixed(b):
    return len(b).to_bytes(4, "big") + b


def commitment_v2(game, seed):
    return hashlib.sha256(COMMIT_DOMAIN_V2 + b"\x00" + _len_prefixed(game.encode("utf-8")) + seed).digest()


def dice_key_v2(game, seed, beacon, contributions):
    h = hashlib.sha256()
    h.update(KEY_DOMAIN_V2 + b"\x00" + seed)
    h.update(_len_prefixed(game.encode("utf-8")) + _len_prefixed(beacon.encode("utf-8")))
    ordered = sorted(contributions, key=lambda c: c[0])
    h.update(len(ordered).to_bytes(4, "big"))
    for car, phrase in ordered:
        h.update(bytes([car]) + _len_prefixed(phrase.encode("utf-8")))
    return h.digest()


def commit_for(scheme, game, seed):
    return commitment_v2(game, seed) if scheme in BY_NUMBER else commitment(seed)


def key_for(scheme, game, seed, contributions, beacon=""):
    if scheme in BY_NUMBER:
        return dice_key_v2(game, seed, beacon, contributions)
    return dice_key(seed, contributions)


def dice_key(seed, contributions):
    h = hashlib.sha256()
    h.update(KEY_DOMAIN + b"\x00" + seed)
    h.update(len(contributions).to_bytes(4, "big"))
    for car, phrase in contributions:
        p = phrase.encode("utf-8")
        h.update(bytes([car]) + len(p).to_bytes(4, "big") + p)
    return h.digest()


class Bad(Exception):
    def __init__(self, turn, why):
        super().__init__(f"turn {turn} (turns/{turn:04d}.toml): {why}")


HEADER = re.compile(r"^\[\[?([A-Za-z0-9_.]+)\]\]?[ \t]*$", re.M)
# The tables of a turn file the dice checks read; the rest (pending options, other events) is
# left out before parsing, which is most of the time a verification takes.
KEEP = {
    "setup", "player", "player.wear", "contribution", "order", "order.pit", "order.pit.repairs", "roll",
    "source", "moderation", "rollback", "retire",
}
ROOT_KEYS = re.compile(r"(?:turn|kind|prev|move|seed|beacon) = ")
ROLLED = re.compile(r"^(?:car (\d+) rolls (\S+) for (\w+)|(\S+) rolled for (\w+)): (\d+)$")


def dice_tables(text):
    """The turn file's text without the tables the dice checks do not read (events kept only
    when they report a roll)."""
    cuts = [m.start() for m in HEADER.finditer(text)]
    root = text[: cuts[0]] if cuts else text
    parts = ["".join(line for line in root.splitlines(keepends=True) if ROOT_KEYS.match(line))]
    for i, s in enumerate(cuts):
        section = text[s : cuts[i + 1] if i + 1 < len(cuts) else len(text)]
        name = HEADER.match(section).group(1)
        if name in KEEP or (name == "event" and (" rolls " in section or " rolled for " in section)):
            parts.append(section)
    return "".join(parts)


class Bad(Exception):
    def __init__(self, turn, why):
        super().__init__(f"turn {turn} (turns/{turn:04d}.toml): {why}")


class NotVerified(Exception):
    pass


def read_turns(game_dir):
    """The parsed turn files (dice tables only) and the SHA-256 of each file's bytes."""
    tdir = os.path.join(game_dir, "turns")
    numbered = []
    for name in os.listdir(tdir):
        m = re.fullmatch(r"(\d{4,})\.toml", name)
        if m:
            numbered.append((int(m.group(1)), name))
    numbered.sort()
    if not numbered:
        raise Bad(0, "no turn files")
    turns, hashes = [], []
    for i, (n, name) in enumerate(numbered):
        if n != i:
            raise Bad(i, f"missing: the turns jump from {i - 1} to {n}")
        with open(os.path.join(tdir, name), "rb") as f:
            data = f.read()
        try:
            turns.append(tomllib.loads(dice_tables(data.decode("utf-8"))))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise Bad(n, f"the file does not parse: {e}")
        hashes.append(hashlib.sha256(data).hexdigest())
    return turns, hashes


EPOCH = re.compile(r"r([1-9][0-9]*)$")
LINE = re.compile(r"[0-9a-f]{16}$")


def split_label(label):
    """(namespace, move, car, purpose, index, line) of `[r<k>/]<move>/<car>/<purpose>/<index>` and,
    in steward-dice-v3, `@<line>` at the end (docs/dice.md, sections 3 and 3a); the namespace is 0
    before a v1/v2 game's first rollback, the line "" before v3. None for another shape."""
    line = ""
    if "@" in label:
        label, line = label.split("@", 1)
        if not LINE.match(line):
            return None
    parts = label.split("/")
    epoch = 0
    if len(parts) == 5:
        m = EPOCH.match(parts[0])
        if not m:
            return None
        epoch, parts = int(m.group(1)), parts[1:]
    if len(parts) != 4:
        return None
    return epoch, parts[0], parts[1], parts[2], parts[3], line


def line_step(line, decision):
    """The v3 line after one more decision (docs/dice.md, section 3a)."""
    d = decision.encode("utf-8")
    return hashlib.sha256(LINE_DOMAIN_V3 + b"\x00" + line + len(d).to_bytes(4, "big") + d).digest()


def decision_text(o):
    """A decision as the v3 line takes it: `3 gear 4`, `3 choose B [pit <kind> <tyres> part=n…]`,
    `3 reroll`."""
    s = str(o["car"])
    if "gear" in o:
        s += f" gear {o['gear']}"
    if "choose" in o:
        s += f" choose {o['choose']}"
    if o.get("reroll"):
        s += " reroll"
    if "pit" in o:
        p = o["pit"]
        s += f" pit {p.get('kind', '-')} {p.get('tyres', '-')}"
        for part in sorted(p.get("repairs", {})):
            s += f" {part}={p['repairs'][part]}"
    return s


def decisions(t, started):
    """The decisions a turn adds to the v3 line, in order: every order but those the rules
    played themselves (a single option, a backmarker), a retirement, a late arrival."""
    out = []
    if t.get("kind") == "join" and started and "player" in t:
        out.append(f"{t['player']['car']} join")
    if t.get("kind") == "player" and "retire" in t:
        out.append(f"{t['retire']['car']} retire")
    for o in t.get("order", []):
        if o.get("by") not in ("forced", "backmarker"):
            out.append(decision_text(o))
    return out


def purpose_of(label):
    s = split_label(label)
    return s[3] if s else ""


def check_rolled_events(n, t):
    """Every roll an event reports is among the turn's rolls, in order: a roll removed from a
    turn leaves its event behind."""
    rolls = [(r["die"], purpose_of(r["label"]), r["value"]) for r in t.get("roll", [])]
    i = 0
    for e in t.get("event", []):
        m = ROLLED.match(e.get("text", ""))
        if not m:
            continue
        die, purpose = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
        want = (die, purpose, int(m.group(6)))
        while i < len(rolls) and rolls[i] != want:
            i += 1
        if i == len(rolls):
            raise Bad(n, f"the event {e['text']!r} reports a roll the turn does not record (a roll was removed)")
        i += 1


def check_gears(n, t):
    """Each gear ordered has its die rolled, in order (6-2-1: the die of the gear announced), or
    the black die of a standing start or restart (9-0-1, 10-4-6)."""
    moves = [(purpose_of(r["label"]), r["die"]) for r in t.get("roll", []) if purpose_of(r["label"]) in ("move", "start")]
    i = 0
    for o in t.get("order", []):
        if "gear" not in o:
            continue
        want = f"gear{o['gear']}-"
        while i < len(moves) and not (moves[i][1].startswith(want) or moves[i] == ("start", "black-d20")):
            i += 1
        if i == len(moves) and t.get("roll"):
            raise Bad(n, f"car {o['car']} ordered gear {o['gear']} but no gear{o['gear']} die was rolled for it")
        i += 1


def verify_game(game_dir, seed_hex=None):
    turns, hashes = read_turns(game_dir)
    setup = turns[0].get("setup") or {}
    scheme = setup.get("dice")
    if scheme not in SCHEMES:
        raise Bad(0, f"unknown dice scheme {scheme!r}")
    game = setup.get("id", "")
    committed = setup.get("commitment", "")
    seed = None
    if seed_hex:
        seed = bytes.fromhex(seed_hex)
        if commit_for(scheme, game, seed).hex() != committed:
            raise Bad(0, "the seed given does not match the commitment")
    for t in turns:
        if "seed" in t and seed is None:
            seed = bytes.fromhex(t["seed"])
            if commit_for(scheme, game, seed).hex() != committed:
                raise Bad(t["turn"], "the revealed seed does not match the commitment of turn 0")
    key = None
    seen = set()
    next_index = {}
    checked = 0
    joined = []  # (car, phrase, bot) in join order
    epoch = 0  # the dice namespace: the number of rollbacks so far
    live = []  # the turns of the current line (a rollback drops the turns it undoes)
    start = None
    v3 = scheme == "steward-dice-v3"
    line = None  # v3: the line of decisions since the start
    line_after = {}  # v3: the line after each turn, to restore at a rollback
    discarded = 0  # rolls of the turns rolled back
    listed = []  # one line per rollback, with the rolls it discarded
    # Turn by turn, as steward does: the chain link to the previous file, then the rolls.
    for n, t in enumerate(turns):
        if t.get("turn") != n:
            raise Bad(n, f"the file says it is turn {t.get('turn')}")
        if n > 0 and t.get("prev") != hashes[n - 1]:
            raise Bad(n, "its prev is not the SHA-256 of the previous turn file")
        if t.get("kind") == "join" and "player" in t:
            p = t["player"]
            if scheme in BY_NUMBER and p.get("bot") and p.get("entropy"):
                raise Bad(n, f"bot car {p['car']} joins with a phrase: a bot contributes none ({scheme})")
            joined.append((p["car"], p.get("entropy", "")))
        if t.get("kind") == "rollback":
            # The game returns to the end of turn `to`; the turns after it stay in the chain and
            # are checked like any other (their rolls too); later rolls are labelled r<epoch>/.
            r = t.get("rollback") or {}
            to = r.get("to")
            if not isinstance(to, int) or to not in live:
                raise Bad(n, f"the rollback's target {to!r} is not a turn of the current line")
            if start is None or to < start:
                raise Bad(n, f"the rollback goes back to turn {to}, before the start")
            if r.get("head") != hashes[n - 1]:
                raise Bad(n, "the rollback's head is not the SHA-256 of the last turn it undoes")
            if r.get("epoch") != epoch + 1:
                raise Bad(n, f"the rollback opens dice namespace r{r.get('epoch')}, r{epoch + 1} expected")
            epoch = r["epoch"]
            gone = [r2 for x in live if x > to for r2 in turns[x].get("roll", [])]
            discarded += len(gone)
            listed.append(
                f"rollback in turn {n} to the end of turn {to}: {len(gone)} roll(s) discarded"
                + (": " + ", ".join(f"{g['label']} {g['die']} = {g['value']}" for g in gone) if gone else "")
            )
            live = [x for x in live if x <= to]
            if v3:
                line = line_after.get(to)
        live.append(n)
        if t.get("kind") == "start":
            start = n
            got = [(c["car"], c["entropy"]) for c in t.get("contribution", [])]
            want = sorted(joined) if scheme in BY_NUMBER else joined
            if got != want:
                raise Bad(n, f"the contributions {got} are not the phrases of the join turns {want}")
            if seed is not None:
                key = key_for(scheme, game, seed, got)
        if v3 and t.get("kind") == "start":
            line = bytes(32)
        # v3: the lines this turn's rolls may carry, in order: before its first decision, then
        # after each (a roll follows the decision that led to it).
        lines = [line]
        if v3 and line is not None:
            for d in decisions(t, start is not None and t.get("kind") != "start"):
                line = line_step(line, d)
                lines.append(line)
            line_after[n] = line
        at_line = 0
        turn_labels = set()
        check_rolled_events(n, t)
        check_gears(n, t)
        if seed is None:
            continue
        for r in t.get("roll", []):
            if key is None:
                raise Bad(n, "a roll before the start")
            label = r["label"]
            parts = split_label(label)
            if parts is None or parts[1] != str(t.get("move")):
                raise Bad(n, f"roll label {label!r} does not name this turn's move {t.get('move')}")
            if v3:
                # The same decisions give the same labels (and dice) after a rollback; a label
                # carries the line of the decisions it follows, and is used once in its turn.
                want = [x[:8].hex() for x in lines[at_line:] if x is not None]
                if parts[0] != 0 or parts[5] not in want:
                    raise Bad(n, f"roll label {label!r} does not end with the line of this turn's decisions (docs/dice.md, section 3a)")
                at_line += want.index(parts[5])
                if label in turn_labels:
                    raise Bad(n, f"roll label {label!r} is used twice in the turn")
                turn_labels.add(label)
            else:
                if parts[0] != epoch or parts[5]:
                    raise Bad(n, f"roll label {label!r} is not in the game's dice namespace r{epoch} (docs/dice.md)")
                if label in seen:
                    raise Bad(n, f"roll label {label!r} is used twice")
                seen.add(label)
                move, index = (parts[0], parts[1]), int(parts[4])
                if index != next_index.get(move, 0):
                    raise Bad(n, f"roll label {label!r}: index {next_index.get(move, 0)} expected")
                next_index[move] = index + 1
            faces = FACES.get(r["die"])
            if faces is None:
                raise Bad(n, f"unknown die {r['die']!r}")
            face = face_index(key, label, len(faces))
            if (r["face"], r["value"]) != (face, faces[face]):
                raise Bad(
                    n,
                    f"roll {label!r} on {r['die']} is recorded as face {r['face']} = {r['value']}, "
                    f"the committed dice give face {face} = {faces[face]}",
                )
            checked += 1
    if seed is None:
        rolls = sum(len(t.get("roll", [])) for t in turns)
        raise NotVerified(
            f"{len(turns)} turns chained, but no seed is revealed (nor given with --seed): "
            f"none of the {rolls} rolls can be checked"
        )
    back = (
        f" ({epoch} rollback(s); {len(turns) - len(live)} turn(s) rolled back with {discarded} roll(s), checked too)"
        if epoch
        else ""
    )
    start_t = turns[start] if start is not None else {}
    if setup.get("beacon"):
        trust = f"public beacon {setup['beacon']} = {start_t.get('beacon', '(not yet given)')}: check that value at its source"
    else:
        trust = NO_BEACON
    end = "" if turns[-1].get("seed") else "\nthe last turn reveals no seed: the race is not over, or the turns after it are missing (check the receipts you were mailed: --mail)"
    text = f"{len(turns)} turns chained{back}; {checked} rolls re-derived from the committed seed, all agree\n{trust}"
    return text + "".join(f"\n{x}" for x in listed) + end, checked


# --- From a player's mails ------------------------------------------------------------------

BLOCK = re.compile(r"^Game: (\S+)  Turn: (\d+)  Dice: (\S+)$")
ROLL_LINE = re.compile(r"^roll (\S+) +(\S+) +face +(\d+) = (\d+)$")
PHRASE_LINE = re.compile(r'^Car (\d+) contributes entropy (".*")$')


def unquote_debug(s):
    """The string a Rust {:?} quoted."""
    out, i, inner = [], 0, s[1:-1]
    while i < len(inner):
        c = inner[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = inner[i + 1]
        if e == "u":
            j = inner.index("}", i)
            out.append(chr(int(inner[i + 3 : j], 16)))
            i = j + 1
            continue
        out.append({"n": "\n", "r": "\r", "t": "\t", "0": "\0"}.get(e, e))
        i += 2
    return "".join(out)


def read_mails(path):
    """(place, raw bytes) of every message of a Maildir folder (cur/, new/) or an mbox file."""
    if os.path.isdir(path):
        subs = [os.path.join(path, s) for s in ("cur", "new") if os.path.isdir(os.path.join(path, s))] or [path]
        out = []
        for d in subs:
            for name in sorted(os.listdir(d)):
                p = os.path.join(d, name)
                if os.path.isfile(p):
                    with open(p, "rb") as f:
                        out.append((os.path.relpath(p, path), f.read()))
        return out
    with open(path, "rb") as f:
        data = f.read()
    out, cur, blank = [], None, True
    for line in data.splitlines(keepends=True):
        if line.startswith(b"From ") and blank:
            if cur is not None:
                out.append((f"mbox message {len(out) + 1}", b"".join(cur)))
            cur, blank = [], False
            continue
        blank = line in (b"\n", b"\r\n")
        if cur is not None:
            stripped = line.lstrip(b">")
            cur.append(line[1:] if stripped is not line and len(stripped) < len(line) and stripped.startswith(b"From ") else line)
    if cur is not None:
        out.append((f"mbox message {len(out) + 1}", b"".join(cur)))
    return out


class MailBad(Exception):
    pass


NO_BEACON = (
    "no public beacon: the operator, who holds the seed, could have tried keys before the start "
    "by steering seats and phrases (docs/dice.md, section 6)"
)


class NotChecked(Exception):
    """The mails lack something a check needs (exit 4): nothing disagrees."""


def start_turn(gdir):
    """The start turn of a game directory, or None."""
    try:
        turns, _ = read_turns(gdir)
    except Bad:
        return None
    return next((t for t in turns if t.get("kind") == "start"), None)


def verify_mail(path, games=None):
    mails, lacks = [], []
    for place, raw in read_mails(path):
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        body = msg.get_body(preferencelist=("plain",))
        if body is None:
            continue
        text = body.get_content()
        heads = [BLOCK.match(line.strip()) for line in text.splitlines()]
        first = next((h for h in heads if h), None)
        if first is None:
            continue
        try:
            date = parsedate_to_datetime(msg["Date"]).timestamp()
        except (TypeError, ValueError):
            date = float("inf")
        mails.append((date, int(first.group(2)), place, text))
    if not mails:
        raise MailBad(f"no mail in {path} carries a steward receipt block (`Game: ...  Turn: ...`)")
    mails.sort(key=lambda m: m[:3])
    g = {}
    for _, _, place, text in mails:
        cur = None
        for line in text.splitlines():
            line = line.strip()
            m = BLOCK.match(line)
            if m:
                game, turn, dice = m.group(1), int(m.group(2)), m.group(3)
                cur = g.setdefault(
                    game,
                    {"dice": dice, "commit": None, "receipts": {}, "seed": None, "phrases": {}, "rolls": {}, "beacon": None, "source": None},
                )
                where = f"the mail of turn {turn} ({place})"
                if cur["dice"] != dice:
                    raise MailBad(f"game {game}: {where} names dice {dice}, an earlier mail {cur['dice']}")
                continue
            if cur is None:
                continue
            if line.startswith("Receipt: "):
                h = line[9:].strip()
                old = cur["receipts"].setdefault(turn, (h, where))
                if old[0] != h:
                    raise MailBad(f"game {game}: turn {turn} was mailed with two receipts: {old[0]} in {old[1]}, {h} in {where}")
            elif line.startswith("Commitment: "):
                c = line[12:].strip()
                if cur["commit"] is None:
                    cur["commit"] = (c, where)
                elif cur["commit"][0] != c:
                    raise MailBad(
                        f"game {game}: {where} carries commitment {c}, but the first mail ({cur['commit'][1]}) "
                        f"committed to {cur['commit'][0]}: the game was re-seeded after the commitment was published"
                    )
            elif line.startswith("Beacon value: "):
                v = line[14:].strip()
                if cur["beacon"] is not None and cur["beacon"][0] != v:
                    raise MailBad(f"game {game}: two beacon values were mailed: {cur['beacon'][0]} and {v} in {where}")
                cur["beacon"] = (v, where)
            elif line.startswith("Beacon: "):
                cur["source"] = cur["source"] or line[8:].strip()
            elif line.startswith("Seed: "):
                s = line[6:].strip()
                if cur["seed"] is not None and cur["seed"][0] != s:
                    raise MailBad(f"game {game}: two seeds were mailed: {cur['seed'][0]} and {s} in {where}")
                cur["seed"] = (s, where)
            else:
                m = ROLL_LINE.match(line)
                if m:
                    r = (m.group(2), int(m.group(3)), int(m.group(4)), where)
                    old = cur["rolls"].setdefault(m.group(1), r)
                    if old[:3] != r[:3]:
                        raise MailBad(f"game {game}: roll {m.group(1)} was mailed with two results, in {old[3]} and {where}")
                    continue
                m = PHRASE_LINE.match(line)
                if m:
                    cur["phrases"][int(m.group(1))] = unquote_debug(m.group(2))
    lines, anything = [], False
    for game in sorted(g):
        s = g[game]
        if s["dice"] not in SCHEMES:
            raise MailBad(f"game {game}: unknown dice scheme {s['dice']}")
        if s["commit"] is None:
            raise MailBad(f"game {game}: no mail carries its commitment")
        first, first_where = s["commit"]
        said = [f"commitment {first} from the first mail, {first_where}"]
        if s["seed"] is not None:
            seed_hex, where = s["seed"]
            seed = bytes.fromhex(seed_hex)
            c = commit_for(s["dice"], game, seed).hex()
            if c != first:
                raise MailBad(f"game {game}: the seed revealed in {where} commits to {c}, not to {first}, the commitment of the first mail ({first_where})")
            # The key's other inputs: the phrases as mailed (the mail with the seed carries them),
            # else as the game directory's start turn gives them; the beacon's value likewise.
            phrases = dict(s["phrases"])
            beacon = s["beacon"][0] if s["beacon"] else None
            if not phrases and games is not None:
                start = start_turn(os.path.join(games, game))
                if start is not None:
                    phrases = {c["car"]: c["entropy"] for c in start.get("contribution", [])}
                    beacon = beacon or start.get("beacon")
            lack = None
            if s["rolls"] and s["source"] and beacon is None:
                lack = "the beacon's value (`Beacon value:`, in every mail after the start)"
            elif s["rolls"] and not phrases:
                lack = "the start's phrases (`Car N contributes entropy`, in the mail that reveals the seed): give --games DIR"
            if lack:
                lacks.append(f"game {game}: {lack}")
            key = key_for(s["dice"], game, seed, sorted(phrases.items()), beacon or "")
            for label, (die, face, value, where) in ([] if lack else s["rolls"].items()):
                faces = FACES.get(die)
                if faces is None:
                    raise MailBad(f"game {game}: roll {label} in {where} names an unknown die {die}")
                f = face_index(key, label, len(faces))
                if (face, value) != (f, faces[f]):
                    raise MailBad(f"game {game}: roll {label} on {die} was mailed as face {face} = {value} in {where}, the committed dice give face {f} = {faces[f]}")
            if lack:
                said.append("the revealed seed matches it; no roll re-derived")
            else:
                said.append(f"the revealed seed matches it; {len(s['rolls'])} mailed roll(s) re-derived, all agree")
            anything = True
        else:
            said.append("the seed is not revealed in these mails: no roll checked")
        if games is not None:
            gdir = os.path.join(games, game)
            if not os.path.isdir(os.path.join(gdir, "turns")):
                raise MailBad(f"game {game}: the mails name it but {games} holds no such game")
            for turn, (h, where) in sorted(s["receipts"].items()):
                p = os.path.join(gdir, "turns", f"{turn:04d}.toml")
                if not os.path.isfile(p):
                    raise MailBad(f"game {game}: turn {turn} was mailed with receipt {h} ({where}), but {p} is missing: turns were deleted")
                with open(p, "rb") as f:
                    got = hashlib.sha256(f.read()).hexdigest()
                if got != h:
                    raise MailBad(f"game {game}: {p} hashes to {got}, but {where} gave its receipt as {h}: the history was rewritten")
            rollbacks = []
            try:
                text, _ = verify_game(gdir, s["seed"][0] if s["seed"] else None)
                rollbacks = [x for x in text.split("\n") if x.startswith("rollback")]
            except NotVerified:
                pass
            except Bad as e:
                raise MailBad(f"game {game}: the game directory does not verify: {e}")
            turns, _ = read_turns(gdir)
            dir_commit = (turns[0].get("setup") or {}).get("commitment")
            if dir_commit != first:
                raise MailBad(f"game {game}: the game directory commits to {dir_commit}, the first mail ({first_where}) to {first}: the game was re-seeded")
            said.append(f"{len(s['receipts'])} mailed receipt(s) match the game directory")
            anything = anything or bool(s["receipts"])
        if s["source"]:
            v = f" = {s['beacon'][0]}" if s["beacon"] else ""
            said.append(f"public beacon {s['source']}{v}: check that value at its source")
        else:
            said.append(NO_BEACON)
        lines.append(f"game {game}: " + "; ".join(said))
        if games is not None:
            lines.extend(f"game {game}: {x}" for x in rollbacks)
    if lacks:
        raise NotChecked("; ".join(lacks) + "\n" + "\n".join(lines))
    if not anything:
        raise NotVerified(f"{len(mails)} mail(s) hold no revealed seed, and no games directory was given")
    return f"{len(mails)} mail(s) from steward read\n" + "\n".join(lines)


def check_vectors(path):
    """Checks the lines of the ```vectors block of docs/dice.md."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"```vectors\n(.*?)```", text, re.S)
    if not m:
        raise SystemExit(f"{path}: no ```vectors block")
    count = 0
    for line in m.group(1).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = [x.strip() for x in line.split(" | ")]
        kind = f[0]
        if kind == "stream":
            got = " ".join(f"{w:08x}" for w, _ in zip(words(bytes.fromhex(f[1])), range(len(f[2].split()))))
            ok = got == f[2]
        elif kind == "commit":
            got = commitment(bytes.fromhex(f[1])).hex()
            ok = got == f[2]
        elif kind == "key":
            got = dice_key(bytes.fromhex(f[1]), [tuple(c) for c in json.loads(f[2])]).hex()
            ok = got == f[3]
        elif kind == "commit2":
            got = commitment_v2(f[1], bytes.fromhex(f[2])).hex()
            ok = got == f[3]
        elif kind == "key2":
            contributions = [tuple(c) for c in json.loads(f[4])]
            got = dice_key_v2(f[1], bytes.fromhex(f[2]), f[3], contributions).hex()
            ok = got == f[5]
        elif kind == "line":
            got = line_step(bytes.fromhex(f[1]), f[2]).hex()
            ok = got == f[3]
        elif kind == "roll":
            key, label, die = bytes.fromhex(f[1]), f[2], f[3]
            face = face_index(key, label, len(FACES[die]))
            got = f"{roll_seed(key, label).hex()} | {face} | {FACES[die][face]}"
            ok = got == " | ".join(f[4:7])
        elif kind == "index":
            drawn = []
            face = face_index(bytes.fromhex(f[1]), f[2], int(f[3]), drawn)
            got = f"{' '.join(f'{w:08x}' for w in drawn)} | {face}"
            ok = got == " | ".join(f[4:6])
        else:
            raise SystemExit(f"{path}: unknown vector kind {kind!r}")
        if not ok:
            print(f"vector FAILS: {line}\n  computed: {got}")
            return 1
        count += 1
    print(f"{count} test vectors of {path} pass")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--vectors":
        return check_vectors(argv[2])
    args = argv[1:]
    opts = {}
    for flag in ("--seed", "--mail", "--games"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(__doc__.strip())
                return 2
            opts[flag] = args[i + 1]
            del args[i : i + 2]
    if "--mail" in opts:
        if args:
            print(__doc__.strip())
            return 2
        target, run = opts["--mail"], lambda: verify_mail(opts["--mail"], opts.get("--games"))
    elif len(args) == 1 and "--games" not in opts:
        target, run = args[0], lambda: verify_game(args[0], opts.get("--seed"))[0]
    else:
        print(__doc__.strip())
        return 2
    # Nothing to check is not a failed check: its own exit code, in one sentence.
    if "--mail" in opts:
        missing = [] if os.path.exists(opts["--mail"]) else [opts["--mail"]]
        if "--games" in opts and not os.path.isdir(opts["--games"]):
            missing.append(opts["--games"])
    else:
        missing = [] if os.path.isdir(os.path.join(args[0], "turns")) else [args[0]]
    if missing:
        print(f"{missing[0]}: no such game or mailbox (nothing was checked)", file=sys.stderr)
        return 3
    try:
        msg = run()
    except (Bad, MailBad) as e:
        print(f"{target}: FAILED: {e}")
        return 1
    except NotVerified as e:
        print(f"{target}: NOT VERIFIED: {e}")
        return 4 if "--mail" in opts else 1
    except NotChecked as e:
        print(f"{target}: NOT CHECKED: the mails lack {e}")
        return 4
    print(f"{target}: ok: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
