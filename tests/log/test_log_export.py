#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""fulmar-log export writes every height in one frame, above mean sea level.

A log written through the real writer (log-export-gen: the demonstration's mission,
home above sea level, waypoints and land point above home, plus one waypoint in each
other frame) is exported as GPX and KML by a real fulmar-log process; the files are
read back with an XML parser and home, waypoints, land point and track compared.
Then a log where home was never set: the waypoints given above home are left out,
and stderr says so, rather than a file of mixed frames.

Usage: test_log_export.py LOG_EXPORT_GEN FULMAR_LOG
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

GPX = "{http://www.topografix.com/GPX/1/1}"
KML = "{http://www.opengis.net/kml/2.2}"
HOME_ALT_M = 583.7   # log-export-gen's home, as set at arming (ORGN Type 1, item 0)
TOL_M = 0.02         # centimetre fields and %.2f output


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout, p.stderr


def log_mission(tool, log):
    """Home's altitude (last ORGN Type 1, or None) and the CMD records, as logged."""
    out, _ = run([tool, "dump", "--json", "--type", "ORGN", "--type", "CMD", log])
    home, cmds = None, {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["type"] == "ORGN" and r["Type"] == 1:
            home = r["Alt"]
        elif r["type"] == "CMD":
            cmds[r["CNum"]] = r
    return home, cmds


def read_gpx(path):
    root = ET.parse(path).getroot()
    wpts = {w.find(GPX + "name").text: float(w.find(GPX + "ele").text)
            for w in root.iter(GPX + "wpt")}
    track = [float(p.find(GPX + "ele").text) for p in root.iter(GPX + "trkpt")]
    return wpts, track


def read_kml(path):
    """Waypoints: name -> (altitudeMode, height); track: heights (altitudeMode absolute)."""
    root = ET.parse(path).getroot()
    wpts, track = {}, None
    for pm in root.iter(KML + "Placemark"):
        name = pm.find(KML + "name").text
        point, line = pm.find(KML + "Point"), pm.find(KML + "LineString")
        if point is not None:
            mode = point.find(KML + "altitudeMode")
            lng, lat, alt = point.find(KML + "coordinates").text.split(",")
            wpts[name] = (mode.text if mode is not None else "clampToGround", float(alt))
        elif line is not None:
            check(line.find(KML + "altitudeMode").text == "absolute", "KML track not absolute")
            track = [float(c.split(",")[2]) for c in line.find(KML + "coordinates").text.split()]
    check(track, "KML without a track")
    return wpts, track


def near(a, b, tol=TOL_M):
    return abs(a - b) <= tol


def export(tool, log, fmt, tmp):
    out, err = run([tool, "export", "--" + fmt, log])
    path = os.path.join(tmp, os.path.basename(log) + "." + fmt)
    with open(path, "w") as f:
        f.write(out)
    return path, err


def test_home_known(gen, tool, tmp):
    d = os.path.join(tmp, "home")
    os.mkdir(d)
    log = run([gen, d, "home"])[0].strip()
    home, cmds = log_mission(tool, log)
    check(home is not None and near(home, HOME_ALT_M), "ORGN home %s, want %.2f" % (home, HOME_ALT_M))

    gpx, gpx_err = export(tool, log, "gpx", tmp)
    wpts, track = read_gpx(gpx)
    print("GPX waypoints:", wpts)
    # Home above sea level as it is; the mission's heights above home put on home.
    check(near(wpts["WP 0"], home), "GPX home ele %.2f, want %.2f" % (wpts["WP 0"], home))
    for seq in (2, 3):
        want = home + cmds[seq]["Alt"]
        check(near(wpts["WP %d" % seq], want), "GPX WP %d (frame %d) ele %.2f, want %.2f"
              % (seq, cmds[seq]["Frame"], wpts["WP %d" % seq], want))
    check(near(wpts["WP 4"], cmds[4]["Alt"]), "GPX WP 4 (GLOBAL_INT) not left as it is")
    land = wpts["WP 9"]
    check(near(land, home - 1.7), "GPX land point ele %.2f, want home %.2f - 1.7" % (land, home))
    # Above terrain: GPX has no such height; placed on home's altitude, and said so.
    check(near(wpts["WP 5"], home + 35.0), "GPX terrain WP 5 ele %.2f" % wpts["WP 5"])
    check("1 waypoint given above terrain" in gpx_err, "GPX stderr lacks the terrain note: " + gpx_err)
    # A local frame has no height above sea level: left out, counted.
    check("WP 6" not in wpts, "GPX wrote the LOCAL_NED waypoint")
    check("1 waypoint in a frame without a height above sea level" in gpx_err,
          "GPX stderr lacks the local-frame note: " + gpx_err)
    check("home's altitude is not in the log" not in gpx_err, "home reported missing")
    # The track in the same frame: it starts at home and ends on the land point.
    check(all(near(e, home, 0.5) for e in track[:5]), "GPX track starts at %s, home %.2f" % (track[:5], home))
    check(near(track[-1], land, 0.5), "GPX track ends at %.2f, land point %.2f" % (track[-1], land))
    check(near(max(track), home + 40.0, 0.5), "GPX track top %.2f, waypoints %.2f" % (max(track), wpts["WP 2"]))

    kml, kml_err = export(tool, log, "kml", tmp)
    kwpts, ktrack = read_kml(kml)
    print("KML waypoints:", kwpts)
    for name, ele in wpts.items():
        if name == "WP 5":
            continue
        mode, alt = kwpts[name]
        check(mode == "absolute" and near(alt, ele), "KML %s: %s %.2f, GPX %.2f" % (name, mode, alt, ele))
    check(kwpts["WP 5"] == ("relativeToGround", 35.0), "KML terrain WP 5: %s" % (kwpts["WP 5"],))
    check("WP 6" not in kwpts, "KML wrote the LOCAL_NED waypoint")
    check("above terrain" not in kml_err, "KML needs no terrain note: " + kml_err)
    check(len(ktrack) == len(track) and all(near(a, b) for a, b in zip(ktrack, track)),
          "KML and GPX tracks differ")


def test_home_unknown(gen, tool, tmp):
    d = os.path.join(tmp, "nohome")
    os.mkdir(d)
    log = run([gen, d, "nohome"])[0].strip()
    home, _ = log_mission(tool, log)
    check(home is None, "nohome log has a home")

    gpx, err = export(tool, log, "gpx", tmp)
    print("GPX stderr:", err.strip())
    wpts, track = read_gpx(gpx)
    # WP 2, 3 (above home), 5 (above terrain, put on home in GPX) and 9 (land) left out.
    check("home's altitude is not in the log" in err and "4 waypoints given above home" in err,
          "GPX stderr does not say home is unknown: " + err)
    check(sorted(wpts) == ["WP 4"], "GPX without home wrote %s" % sorted(wpts))
    check(all(e > 500.0 for e in list(wpts.values()) + track), "GPX without home mixes frames")

    kml, err = export(tool, log, "kml", tmp)
    kwpts, ktrack = read_kml(kml)
    check("home's altitude is not in the log" in err and "3 waypoints given above home" in err,
          "KML stderr does not say home is unknown: " + err)
    check(sorted(kwpts) == ["WP 4", "WP 5"], "KML without home wrote %s" % sorted(kwpts))
    check(kwpts["WP 4"][0] == "absolute" and kwpts["WP 5"][0] == "relativeToGround", "KML modes")
    check(all(e > 500.0 for e in ktrack), "KML without home mixes frames")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    gen, tool = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        test_home_known(gen, tool, tmp)
        test_home_unknown(gen, tool, tmp)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
