#!/usr/bin/env python3
"""Independent verifier of steward's committed-seed dice (docs/dice.md), standard library only.

It shares no code with steward: from the files of a game directory alone it checks the hash
chain of the turns, that the revealed seed matches the commitment published in turn 0, derives
the dice key from the seed and the players' phrases of the start turn, and re-derives every
roll (label, die, face, value).

    python3 tools/verify_game.py GAME_DIR [--seed HEX]   # exit 0: all agree, 1: a bad turn
    python3 tools/verify_game.py --vectors docs/dice.md   # the test vectors of docs/dice.md

Needs Python 3.11 or later (tomllib).
"""

import hashlib
import json
import os
import re
import sys
import tomllib

DOMAIN = b"steward-dice-v1"
KEY_DOMAIN = b"steward-key-v1"

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


def _rotl(v, n):
    return ((v << n) & MASK) | (v >> (32 - n))


def _quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter):
    """The 16 output words of ChaCha20 block `counter` (64-bit counter, 64-bit stream 0)."""
    const = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    k = [int.from_bytes(key[i : i + 4], "little") for i in range(0, 32, 4)]
    state = const + k + [counter & MASK, counter >> 32, 0, 0]
    s = list(state)
    for _ in range(10):
        _quarter(s, 0, 4, 8, 12)
        _quarter(s, 1, 5, 9, 13)
        _quarter(s, 2, 6, 10, 14)
        _quarter(s, 3, 7, 11, 15)
        _quarter(s, 0, 5, 10, 15)
        _quarter(s, 1, 6, 11, 12)
        _quarter(s, 2, 7, 8, 13)
        _quarter(s, 3, 4, 9, 14)
    return [(s[i] + state[i]) & MASK for i in range(16)]


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
    for w in words(roll_seed(key, label)):
        if drawn is not None:
            drawn.append(w)
        if w < zone:
            return w % faces
    raise AssertionError("unreachable")


def commitment(seed):
    return hashlib.sha256(seed).digest()


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


def verify_game(game_dir, seed_hex=None):
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
            turns.append(tomllib.loads(data.decode("utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise Bad(n, f"the file does not parse: {e}")
        hashes.append(hashlib.sha256(data).hexdigest())
    setup = turns[0].get("setup") or {}
    if setup.get("dice") != "steward-dice-v1":
        raise Bad(0, f"unknown dice scheme {setup.get('dice')!r}")
    committed = setup.get("commitment", "")
    seed = None
    if seed_hex:
        seed = bytes.fromhex(seed_hex)
        if commitment(seed).hex() != committed:
            raise Bad(0, "the seed given does not match the commitment")
    for t in turns:
        if "seed" in t and seed is None:
            seed = bytes.fromhex(t["seed"])
            if commitment(seed).hex() != committed:
                raise Bad(t["turn"], "the revealed seed does not match the commitment of turn 0")
    key = None
    seen = set()
    next_index = {}
    checked = 0
    # Turn by turn, as steward does: the chain link to the previous file, then the rolls.
    for n, t in enumerate(turns):
        if t.get("turn") != n:
            raise Bad(n, f"the file says it is turn {t.get('turn')}")
        if n > 0 and t.get("prev") != hashes[n - 1]:
            raise Bad(n, "its prev is not the SHA-256 of the previous turn file")
        if seed is None:
            continue
        if t.get("kind") == "start":
            key = dice_key(seed, [(c["car"], c["entropy"]) for c in t.get("contribution", [])])
        for r in t.get("roll", []):
            if key is None:
                raise Bad(n, "a roll before the start")
            label = r["label"]
            parts = label.split("/")
            if len(parts) != 4 or parts[0] != str(t.get("move")):
                raise Bad(n, f"roll label {label!r} does not name this turn's move {t.get('move')}")
            if label in seen:
                raise Bad(n, f"roll label {label!r} is used twice")
            seen.add(label)
            move, index = parts[0], int(parts[3])
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
        return f"{len(turns)} turns chained; the seed is not revealed, so no roll can be checked yet", 0
    return f"{len(turns)} turns chained; {checked} rolls re-derived from the committed seed, all agree", checked


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
    seed = None
    if "--seed" in args:
        i = args.index("--seed")
        seed = args[i + 1]
        del args[i : i + 2]
    if len(args) != 1:
        print(__doc__.strip())
        return 2
    try:
        msg, _ = verify_game(args[0], seed)
    except Bad as e:
        print(f"{args[0]}: FAILED: {e}")
        return 1
    print(f"{args[0]}: ok: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
