#!/usr/bin/env python3
"""Writes a long, realistic NMEA log for the trace benchmark (scripts/bench-trace.sh).

A walker going round a 1.2 km loop in Bologna at 1.4 m/s with GPS jitter, one epoch a second,
each epoch as a u-blox sends it: GGA, GSA, three GSV, RMC, VTG, GST (8 sentences, valid
checksums). Every 5000th epoch has a wrong checksum and every 7000th a status-V RMC, so the
parser's rejection paths run too. Usage: make-bench-trace.py SENTENCES OUT
"""
import math, random, sys, datetime

def nmea(body):
    s = 0
    for c in body.encode():
        s ^= c
    return "$%s*%02X\r\n" % (body, s)

def ddmm(v, width):
    a = abs(v)
    d = int(a)
    return "%0*d%08.5f" % (width, d, (a - d) * 60)

def main():
    target, out = int(sys.argv[1]), sys.argv[2]
    random.seed(7)
    lat0, lon0 = 44.4939, 11.3426
    t = datetime.datetime(2026, 4, 18, 8, 0, 0)
    written = 0
    epoch = 0
    with open(out, "w") as f:
        while written < target:
            angle = (epoch * 1.4 / 1200.0) * 2 * math.pi
            lat = lat0 + (190 / 111_320) * math.sin(angle) + random.gauss(0, 1.5e-5)
            lon = lon0 + (190 / (111_320 * math.cos(math.radians(lat0)))) * math.cos(angle) + random.gauss(0, 2e-5)
            hms = t.strftime("%H%M%S") + ".00"
            dmy = t.strftime("%d%m%y")
            la, ns = ddmm(lat, 2), "N" if lat >= 0 else "S"
            lo, ew = ddmm(lon, 3), "E" if lon >= 0 else "W"
            hdop = 0.8 + random.random() * 0.6
            lines = [
                nmea(f"GNGGA,{hms},{la},{ns},{lo},{ew},1,12,{hdop:.2f},54.{epoch % 10},M,46.9,M,,"),
                nmea(f"GNGSA,A,3,02,05,07,09,13,15,18,20,30,,,,1.45,{hdop:.2f},1.10,1"),
                nmea("GPGSV,3,1,10,02,41,312,38,05,55,071,42,07,23,140,35,09,12,281,30,1"),
                nmea("GPGSV,3,2,10,13,67,201,44,15,31,051,39,18,08,329,28,20,44,110,41,1"),
                nmea("GPGSV,3,3,10,30,19,245,33,36,30,158,36,1"),
                nmea(f"GNRMC,{hms},{'V' if epoch % 7000 == 6999 else 'A'},{la},{ns},{lo},{ew},2.72,{(math.degrees(angle) + 90) % 360:.2f},{dmy},,,A,V"),
                nmea("GNVTG,,T,,M,2.72,N,5.04,K,A"),
                nmea(f"GNGST,{hms},12,2.1,1.7,78.3,{1.5 + random.random():.1f},{1.6 + random.random():.1f},3.1"),
            ]
            if epoch % 5000 == 4999:
                lines[0] = lines[0][:-4] + "00\r\n"
            f.writelines(lines)
            written += len(lines)
            epoch += 1
            t += datetime.timedelta(seconds=1)

main()
