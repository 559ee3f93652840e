#!/usr/bin/env python3
"""Writes the inputs of the scale benchmark (scripts/bench-scale.sh).

  make-scale-bench.py tour POINTS FOLDER   a tour of POINTS points on a square grid 15 m apart,
                                           radius 30 m, so each overlaps a couple of dozen
                                           neighbours (lint's overlap check at its worst)
  make-scale-bench.py trace FIXES FILE     an NMEA log of FIXES fixes, one GGA a second (hdop 0.9),
                                           a walker circling 200 m round the demo tour's middle
  make-scale-bench.py route VERTICES FOLDER a 50 km tour eastwards, a drawn route of VERTICES
                                           vertices winding 20 m either side, a point every 500 m
  make-scale-bench.py resting VERTICES FOLDER the same tour, its route holding, 250 m on, VERTICES
                                           vertices going back and forth between two places 4 m
                                           apart (a receiver's track at rest, drawn as the route)
  make-scale-bench.py standing METRES FILE an hour at 10 Hz (RMC and GGA, hdop 0.9) of a walker
                                           standing METRES north of that route's start
"""
import json, math, os, sys

def nmea(body):
    s = 0
    for c in body.encode():
        s ^= c
    return "$%s*%02X\n" % (body, s)

def ddmm(v, width):
    a = abs(v)
    d = int(a)
    return "%0*d%07.4f" % (width, d, (a - d) * 60)

def tour(count, folder):
    side = math.ceil(math.sqrt(count))
    points = []
    for i in range(count):
        lat = 44.49 + (i // side) * 15 / 111_132.95
        lng = 11.34 + (i % side) * 15 / 79_000
        points.append({"id": "p%d" % (i + 1), "order": i + 1, "location": {"lat": round(lat, 7), "lng": round(lng, 7)},
                       "triggerRadiusMeters": 30, "content": {"en": {"title": "Point %d" % (i + 1)}}})
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tour.json"), "w") as f:
        json.dump({"format": 1, "id": "scale", "slug": "scale",
                   "languages": {"en": {"title": "Scale", "completionMessage": "Done"}}, "points": points}, f)

def trace(count, path):
    lat0, lon0 = 43.7700, 11.2540
    with open(path, "w") as f:
        for t in range(count):
            angle = t * 1.3 / 200
            lat = lat0 + 200 * math.sin(angle) / 111_132.95
            lon = lon0 + 200 * math.cos(angle) / 80_400
            hms = "%02d%02d%02d.00" % (t // 3600 % 24, t // 60 % 60, t % 60)
            f.write(nmea("GPGGA,%s,%s,N,%s,E,1,09,0.9,50.0,M,46.9,M,," % (hms, ddmm(lat, 2), ddmm(lon, 3))))

LAT0, LON0 = 44.49, 11.34
M_LAT, M_LON = 111_132.95, 79_500.0

def winding(x):
    return 20 * math.sin(x / 47)

def route(count, folder, resting=0):
    vertices = []
    for i in range(count):
        x = 50_000 * i / (count - 1)
        if resting and x >= 250:
            # At rest 250 m on, between two points (a point's neighbourhood is never a stray).
            here = (LAT0 + winding(x) / M_LAT, LON0 + x / M_LON)
            aside = (here[0], here[1] + 4 / M_LON)
            vertices += ["%.7f,%.7f" % (aside if k % 2 else here) for k in range(resting)]
            resting = 0
        vertices.append("%.7f,%.7f" % (LAT0 + winding(x) / M_LAT, LON0 + x / M_LON))
    points = []
    for k in range(100):
        x = 500 * k
        points.append({"id": "p%d" % (k + 1), "order": k + 1,
                       "location": {"lat": round(LAT0 + winding(x) / M_LAT, 7), "lng": round(LON0 + x / M_LON, 7)},
                       "triggerRadiusMeters": 30, "content": {"en": {"title": "Point %d" % (k + 1)}}})
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tour.json"), "w") as f:
        json.dump({"format": 1, "id": "long-route", "slug": "long-route",
                   "languages": {"en": {"title": "Long route", "completionMessage": "Done"}}, "points": points,
                   "route": ";".join(vertices)}, f)

def standing(offset, path):
    with open(path, "w") as f:
        for n in range(36_000):
            t = n / 10
            # A metre of wander, the same in every run.
            lat = LAT0 + (offset + math.sin(n * 0.37)) / M_LAT
            lon = LON0 + math.cos(n * 0.23) / M_LON
            hms = "%02d%02d%05.2f" % (9 + int(t) // 3600, int(t) // 60 % 60, t % 60)
            la, lo = ddmm(lat, 2), ddmm(lon, 3)
            f.write(nmea("GPRMC,%s,A,%s,N,%s,E,0.0,0.0,120526,,,A" % (hms, la, lo)))
            f.write(nmea("GPGGA,%s,%s,N,%s,E,1,09,0.9,50.0,M,46.9,M,," % (hms, la, lo)))

if __name__ == "__main__":
    kind, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    resting = lambda count, out: route(50_000, out, resting=count)
    {"tour": tour, "trace": trace, "route": route, "resting": resting, "standing": standing}[kind](count, out)
