#!/usr/bin/env python3
"""Generates tours/demo: a five-point walk through the centre of Florence, from Piazza del Duomo
down Via dei Calzaiuoli, across Piazza della Signoria and the Ponte Vecchio to Palazzo Pitti.

Everything is made here so it can be remade and reviewed:
  * narration in English and Italian with espeak-ng, encoded with `lame -b 64`;
  * SRT subtitles timed from the exact sample counts of each spoken sentence;
  * a recorded-looking walk at 1.3 m/s, 1 Hz: NMEA (RMC + GGA + GSA, valid checksums) with gaussian
    noise of a few metres that wanders slowly as a receiver's does (not white noise, which would
    zigzag and double the walked distance), one outlier jump of ~470 m into point 4's radius, one 8-second
    outage; the same fixes as GPX;
  * tour.json in the format of docs/tour-folder.md.

The random walk is seeded, so the trace (and the trigger times tests pin down) never change unless
this script does. Requires: python3, espeak-ng, lame. Run from anywhere:
    python3 scripts/make-demo-tour.py [--skip-audio]

For the benchmark (scripts/bench-preview.sh), a long trace of the same kind, streamed to a file:
    python3 scripts/make-demo-tour.py --bench-trace EPOCHS OUT.nmea
The walker paces the first 500 m of the route back and forth (reaching points 1 to 3 only), so
the tour never completes and a preview has to read every one of the 3 x EPOCHS sentences.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import wave
from datetime import datetime, timedelta, timezone

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tours", "demo")

WALK_SPEED = 1.3          # m/s, the pace lint assumes too
NOISE_SIGMA = 3.0         # metres per axis: the slow wander of a receiver's position error
NOISE_TAU = 20.0          # seconds: how long that error takes to change (first-order Gauss-Markov)
JITTER_SIGMA = 0.4        # metres per axis: the fix-to-fix jitter on top
START = datetime(2026, 4, 18, 8, 30, 0, tzinfo=timezone.utc)   # 10:30 in Florence
SEED = 20260418

# The route as a walker follows it (streets, not straight lines between points).
ROUTE = [
    (43.77318, 11.25300),   # Via de' Cerretani, walking east
    (43.77300, 11.25420),   # Piazza di San Giovanni, west of the Baptistery
    (43.77272, 11.25500),   # south of the Baptistery
    (43.77262, 11.25545),   # 1 Piazza del Duomo, between Baptistery and Campanile
    (43.77150, 11.25535),   # Via dei Calzaiuoli
    (43.77085, 11.25530),   # 2 Orsanmichele
    (43.76985, 11.25550),   # Via dei Calzaiuoli into the square
    (43.76950, 11.25560),   # 3 Piazza della Signoria
    (43.76925, 11.25500),   # Via Vacchereccia
    (43.76905, 11.25395),   # Via Por Santa Maria
    (43.76830, 11.25342),   # north end of the bridge
    (43.76797, 11.25313),   # 4 Ponte Vecchio
    (43.76750, 11.25268),   # south end of the bridge
    (43.76705, 11.25220),   # Via de' Guicciardini, Santa Felicita
    (43.76620, 11.25110),   # Via de' Guicciardini
    (43.76560, 11.25040),   # 5 Piazza de' Pitti
]

POINTS = [
    {
        "id": "7c1e0b52-5d0a-4f3e-9a61-0d1f00000001", "order": 1, "at": (43.77262, 11.25545), "radius": 30,
        "en": ("Piazza del Duomo", [
            "Welcome to the heart of Florence.",
            "In front of you rises Giotto's bell tower, and beside it the great dome of Brunelleschi.",
            "Walk south, into Via dei Calzaiuoli, the street of the shoemakers.",
        ]),
        "it": ("Piazza del Duomo", [
            "Benvenuti nel cuore di Firenze.",
            "Davanti a voi si alza il campanile di Giotto, e accanto la grande cupola del Brunelleschi.",
            "Camminate verso sud, in via dei Calzaiuoli, la strada dei calzolai.",
        ]),
    },
    {
        "id": "7c1e0b52-5d0a-4f3e-9a61-0d1f00000002", "order": 2, "at": (43.77085, 11.25530), "radius": 25,
        "en": ("Orsanmichele", [
            "On your right stands Orsanmichele, a grain market that became a church.",
            "Each niche holds the patron saint of a guild.",
        ]),
        "it": ("Orsanmichele", [
            "Alla vostra destra c'è Orsanmichele, un mercato del grano diventato chiesa.",
            "Ogni nicchia ospita il santo patrono di un'arte.",
        ]),
    },
    {
        "id": "7c1e0b52-5d0a-4f3e-9a61-0d1f00000003", "order": 3, "at": (43.76950, 11.25560), "radius": 35,
        "en": ("Piazza della Signoria", [
            "This is Piazza della Signoria, the political heart of the city for seven centuries.",
            "Palazzo Vecchio still houses the town hall.",
            "Leave the square to the west, along Via Vacchereccia.",
        ]),
        "it": ("Piazza della Signoria", [
            "Questa è piazza della Signoria, il cuore politico della città da sette secoli.",
            "Palazzo Vecchio ospita ancora il municipio.",
            "Uscite dalla piazza verso ovest, per via Vacchereccia.",
        ]),
    },
    {
        "id": "7c1e0b52-5d0a-4f3e-9a61-0d1f00000004", "order": 4, "at": (43.76797, 11.25313), "radius": 30,
        "en": ("Ponte Vecchio", [
            "You are on the Ponte Vecchio, the old bridge over the Arno.",
            "Goldsmiths have sold their work here since the sixteenth century.",
        ]),
        "it": ("Ponte Vecchio", [
            "Siete sul Ponte Vecchio, il ponte più antico sull'Arno.",
            "Gli orafi vendono qui i loro gioielli dal Cinquecento.",
        ]),
    },
    {
        "id": "7c1e0b52-5d0a-4f3e-9a61-0d1f00000005", "order": 5, "at": (43.76560, 11.25040), "radius": 35,
        "en": ("Palazzo Pitti", [
            "Palazzo Pitti, home of the Medici grand dukes.",
            "Behind it, the Boboli Gardens climb the hill.",
            "This is the end of our walk.",
        ]),
        "it": ("Palazzo Pitti", [
            "Palazzo Pitti, dimora dei granduchi Medici.",
            "Alle sue spalle, il giardino di Boboli sale sulla collina.",
            "Qui finisce la nostra passeggiata.",
        ]),
    },
]

LANGUAGES = {
    "en": {"title": "Florence: from the Duomo to Palazzo Pitti",
           "description": "Five stops through the old town, across the Ponte Vecchio.",
           "completionMessage": "Thank you for walking Florence with us.",
           "busInfo": "Bus C1 stops at Piazza San Marco; the station is ten minutes on foot."},
    "it": {"title": "Firenze: dal Duomo a Palazzo Pitti",
           "description": "Cinque tappe nel centro storico, attraverso il Ponte Vecchio.",
           "completionMessage": "Grazie per aver camminato con noi a Firenze."},
}
VOICES = {"en": "en", "it": "it"}
PAUSE_SECONDS = 0.4       # silence between sentences

# ---------------------------------------------------------------------------------------------
# Geometry: local flat approximation is fine for noise; distances along the route use the sphere,
# the route being only a kilometre long.

EARTH = 6371008.8


def offset(lat, lng, north_m, east_m):
    dlat = north_m / EARTH
    dlng = east_m / (EARTH * math.cos(math.radians(lat)))
    return lat + math.degrees(dlat), lng + math.degrees(dlng)


def haversine(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * EARTH * math.asin(math.sqrt(h))


def along(route, s):
    """The position s metres along the route (clamped to its end) and the course there."""
    for a, b in zip(route, route[1:]):
        d = haversine(a, b)
        if s <= d:
            f = s / d if d else 0
            course = math.degrees(math.atan2((b[1] - a[1]) * math.cos(math.radians(a[0])), b[0] - a[0])) % 360
            return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f), course
        s -= d
    a, b = route[-2], route[-1]
    course = math.degrees(math.atan2((b[1] - a[1]) * math.cos(math.radians(a[0])), b[0] - a[0])) % 360
    return route[-1], course


def route_length(route):
    return sum(haversine(a, b) for a, b in zip(route, route[1:]))

# ---------------------------------------------------------------------------------------------
# NMEA


def checksum(body):
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return "%02X" % c


def sentence(body):
    return "$%s*%s" % (body, checksum(body))


def nmea_lat(lat):
    hemi = "N" if lat >= 0 else "S"
    lat = abs(lat)
    deg = int(lat)
    return "%02d%08.5f" % (deg, (lat - deg) * 60), hemi


def nmea_lng(lng):
    hemi = "E" if lng >= 0 else "W"
    lng = abs(lng)
    deg = int(lng)
    return "%03d%08.5f" % (deg, (lng - deg) * 60), hemi


def epoch_sentences(t, fix):
    hms = t.strftime("%H%M%S") + ".00"
    dmy = t.strftime("%d%m%y")
    if fix is None:  # lost the sky: receivers keep talking, with empty fields
        return [
            sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, dmy)),
            sentence("GPGGA,%s,,,,,0,00,99.99,,,,,," % hms),
            sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"),
        ]
    lat, lathemi = nmea_lat(fix["lat"])
    lng, lnghemi = nmea_lng(fix["lng"])
    knots = fix["speed"] * 3600 / 1852
    sats = fix["sats"]
    prns = fix["prns"]
    return [
        sentence("GPRMC,%s,A,%s,%s,%s,%s,%.3f,%.2f,%s,,,A" % (hms, lat, lathemi, lng, lnghemi, knots, fix["course"], dmy)),
        sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,46.6,M,," % (hms, lat, lathemi, lng, lnghemi, sats,
                                                                    fix["hdop"], fix["alt"])),
        sentence("GPGSA,A,3,%s,%.2f,%.2f,%.2f" % (",".join(["%02d" % p for p in prns] + [""] * (12 - len(prns))),
                                                   fix["pdop"], fix["hdop"], fix["vdop"])),
    ]


def parse_written(value, hemi, degree_digits):
    deg = int(value[:degree_digits])
    minutes = float(value[degree_digits:])
    v = deg + minutes / 60
    return -v if hemi in "SW" else v

# ---------------------------------------------------------------------------------------------
# The walk


class Wander:
    """Position error as receivers make it: a first-order Gauss-Markov process per axis (sigma
    NOISE_SIGMA, time constant NOISE_TAU) plus a little white jitter."""

    def __init__(self, rng):
        self.rng = rng
        self.a = math.exp(-1.0 / NOISE_TAU)
        self.n = rng.gauss(0, NOISE_SIGMA)
        self.e = rng.gauss(0, NOISE_SIGMA)

    def step(self):
        k = math.sqrt(1 - self.a * self.a) * NOISE_SIGMA
        self.n = self.a * self.n + k * self.rng.gauss(0, 1)
        self.e = self.a * self.e + k * self.rng.gauss(0, 1)
        return (self.n + self.rng.gauss(0, JITTER_SIGMA), self.e + self.rng.gauss(0, JITTER_SIGMA))


def make_walk():
    rng = random.Random(SEED)
    wander = Wander(rng)
    total = route_length(ROUTE)
    walk_seconds = int(math.ceil(total / WALK_SPEED))
    dwell_end = 45                      # the walker stays at Palazzo Pitti for the last narration
    seconds = walk_seconds + dwell_end
    outlier_at = 220                    # on Via dei Calzaiuoli, between points 1 and 2
    outage = range(548, 556)            # 8 s without a fix, on Via Por Santa Maria
    base_prns = [2, 5, 7, 9, 13, 15, 18, 20, 24, 29, 30]
    fixes = []
    for i in range(seconds):
        t = START + timedelta(seconds=i)
        if i in outage:
            fixes.append((t, None, None))
            continue
        s = min(i * WALK_SPEED, total)
        true_pos, course = along(ROUTE, s)
        speed = WALK_SPEED if s < total else 0.0
        north, east = wander.step()
        lat, lng = offset(true_pos[0], true_pos[1], north, east)
        if i == outlier_at:
            # A multipath reflection: one fix lands on the Ponte Vecchio, inside point 4's radius,
            # 470 m from the walker; the next fix is back on track.
            lat, lng = offset(POINTS[3]["at"][0], POINTS[3]["at"][1], 4.0, -3.0)
        sats = 8 + (i // 97) % 4
        hdop = round(0.8 + 0.4 * abs(math.sin(i / 53.0)), 2)
        fixes.append((t, {
            "lat": lat, "lng": lng, "speed": speed, "course": course, "sats": sats,
            "prns": base_prns[:sats], "hdop": hdop, "pdop": round(hdop * 1.6, 2), "vdop": round(hdop * 1.3, 2),
            "alt": round(52.0 + 3 * math.sin(i / 90.0), 1),
        }, true_pos))
    return fixes, total


def write_traces(fixes):
    os.makedirs(os.path.join(ROOT, "traces"), exist_ok=True)
    lines = []
    for t, fix, _ in fixes:
        lines.extend(epoch_sentences(t, fix))
    with open(os.path.join(ROOT, "traces", "walk.nmea"), "w", newline="") as f:
        f.write("\r\n".join(lines) + "\r\n")

    # The GPX holds exactly the positions the NMEA says, as written there (same rounding).
    gpx = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<gpx version="1.1" creator="walkscape make-demo-tour.py" xmlns="http://www.topografix.com/GPX/1/1">',
           '  <metadata><name>Florence: from the Duomo to Palazzo Pitti</name></metadata>',
           '  <trk><name>demo walk</name><trkseg>']
    for t, fix, _ in fixes:
        if fix is None:
            continue
        lat_s, lat_h = nmea_lat(fix["lat"])
        lng_s, lng_h = nmea_lng(fix["lng"])
        lat = parse_written(lat_s, lat_h, 2)
        lng = parse_written(lng_s, lng_h, 3)
        gpx.append('    <trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele><time>%s</time><fix>3d</fix>'
                   '<sat>%d</sat><hdop>%.2f</hdop></trkpt>'
                   % (lat, lng, fix["alt"], t.strftime("%Y-%m-%dT%H:%M:%SZ"), fix["sats"], fix["hdop"]))
    gpx.append('  </trkseg></trk>')
    gpx.append('</gpx>')
    with open(os.path.join(ROOT, "traces", "walk.gpx"), "w") as f:
        f.write("\n".join(gpx) + "\n")

# ---------------------------------------------------------------------------------------------
# Narration


def srt_time(seconds):
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3600000)
    m, ms = divmod(ms, 60000)
    s, ms = divmod(ms, 1000)
    return "%02d:%02d:%02d,%03d" % (h, m, s, ms)


def make_narration(lang, order, sentences):
    """Speaks each sentence separately so the subtitle cues land exactly on the samples."""
    media = os.path.join(ROOT, "media", lang)
    os.makedirs(media, exist_ok=True)
    frames = []
    cues = []
    rate = None
    with tempfile.TemporaryDirectory() as tmp:
        for n, text in enumerate(sentences):
            path = os.path.join(tmp, "%d.wav" % n)
            subprocess.run(["espeak-ng", "-v", VOICES[lang], "-s", "150", "-w", path, text], check=True)
            with wave.open(path) as w:
                rate = w.getframerate()
                assert w.getnchannels() == 1 and w.getsampwidth() == 2
                data = w.readframes(w.getnframes())
            start = sum(len(f) for f in frames) // 2
            frames.append(data)
            end = start + len(data) // 2
            cues.append((start / rate, end / rate, text))
            frames.append(b"\0\0" * int(PAUSE_SECONDS * rate))
        frames.pop()  # no pause after the last sentence
        joined = os.path.join(tmp, "joined.wav")
        with wave.open(joined, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(b"".join(frames))
        mp3 = os.path.join(media, "%02d.mp3" % order)
        subprocess.run(["lame", "--quiet", "-b", "64", joined, mp3], check=True)
    with open(os.path.join(media, "%02d.srt" % order), "w") as f:
        for n, (a, b, text) in enumerate(cues, 1):
            f.write("%d\n%s --> %s\n%s\n\n" % (n, srt_time(a), srt_time(b), text))
    total_samples = sum(len(f) for f in frames) // 2
    return total_samples / rate

# ---------------------------------------------------------------------------------------------


def write_bench_trace(epochs, path):
    rng = random.Random(SEED + epochs)
    wander = Wander(rng)
    leg = 500.0
    base_prns = [2, 5, 7, 9, 13, 15, 18, 20, 24, 29, 30]
    with open(path, "w", newline="") as f:
        for i in range(epochs):
            t = START + timedelta(seconds=i)
            if i % 3600 in range(1800, 1806):      # a short outage every hour
                f.write("\r\n".join(epoch_sentences(t, None)) + "\r\n")
                continue
            s = (i * WALK_SPEED) % (2 * leg)
            s = s if s <= leg else 2 * leg - s
            pos, course = along(ROUTE, s)
            north, east = wander.step()
            lat, lng = offset(pos[0], pos[1], north, east)
            if i % 997 == 500:                       # now and then a multipath outlier
                lat, lng = offset(lat, lng, 350.0, -200.0)
            sats = 8 + (i // 97) % 4
            hdop = round(0.8 + 0.4 * abs(math.sin(i / 53.0)), 2)
            fix = {"lat": lat, "lng": lng, "speed": WALK_SPEED, "course": course, "sats": sats,
                   "prns": base_prns[:sats], "hdop": hdop, "pdop": round(hdop * 1.6, 2), "vdop": round(hdop * 1.3, 2),
                   "alt": round(52.0 + 3 * math.sin(i / 90.0), 1)}
            f.write("\r\n".join(epoch_sentences(t, fix)) + "\r\n")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--bench-trace":
        write_bench_trace(int(sys.argv[2]), sys.argv[3])
        return
    skip_audio = "--skip-audio" in sys.argv
    os.makedirs(ROOT, exist_ok=True)
    fixes, total = make_walk()
    write_traces(fixes)
    durations = {}
    if not skip_audio:
        for p in POINTS:
            for lang in ("en", "it"):
                durations[(p["order"], lang)] = make_narration(lang, p["order"], p[lang][1])
    tour = {
        "format": 1,
        "id": "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10",
        "slug": "florence-duomo-pitti",
        "city": "Florence",
        "difficulty": "easy",
        "durationMinutes": round(total / WALK_SPEED / 60) + 5,
        "distanceKm": round(total / 1000, 2),
        "isProtected": False,
        "defaultLanguage": "en",
        "route": ";".join("%.5f,%.5f" % c for c in ROUTE),
        "languages": LANGUAGES,
        "points": [{
            "id": p["id"],
            "order": p["order"],
            "location": {"lat": p["at"][0], "lng": p["at"][1]},
            "triggerRadiusMeters": p["radius"],
            "content": {lang: {
                "title": p[lang][0],
                "description": " ".join(p[lang][1]),
                "audio": "media/%s/%02d.mp3" % (lang, p["order"]),
                "subtitles": "media/%s/%02d.srt" % (lang, p["order"]),
            } for lang in ("en", "it")},
        } for p in POINTS],
        "traces": ["traces/walk.nmea", "traces/walk.gpx"],
    }
    with open(os.path.join(ROOT, "tour.json"), "w") as f:
        json.dump(tour, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("route %.0f m, %d epochs, walk %.0f s" % (total, len(fixes), total / WALK_SPEED))
    for (order, lang), d in sorted(durations.items()):
        print("narration %d %s: %.3f s" % (order, lang, d))
    # Distances between consecutive points along the route, for a quick lint by eye.
    for p, q in zip(POINTS, POINTS[1:]):
        print("point %d -> %d: %.0f m straight" % (p["order"], q["order"], haversine(p["at"], q["at"])))


if __name__ == "__main__":
    main()
