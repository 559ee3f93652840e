import CFuzzerShim
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for the tour-folder format: any bytes as `tour.json`, in a folder that holds
/// the files the demo tour names (media, subtitles, traces) plus a few more. `TourFolder.load`
/// either refuses the folder with one line or returns a tour that keeps the format's promises;
/// then `playable()` in each language, the default and an unknown one. Crashes, hangs and broken
/// promises are findings (a refusal must give a reason): points in ascending, unique order with unique ids, coordinates on the
/// globe, radii in (0, 1000] m, media inside the folder, a default language the tour has.
///
///     scripts/fuzz.sh tour 600        (make fuzz-tour FUZZ_SECONDS=600)
///
/// Seeds: the bundled tours' `tour.json` files (scripts/fuzz.sh copies them into the corpus).
let root = URL(fileURLWithPath: "/dev/shm/walkscape-fuzz-tour-\(getpid())", isDirectory: true)
let manifest = root.appendingPathComponent(TourFolder.manifestName)

/// Every file of the bundled demo tour (as an empty file: loading checks that media exist, it
/// does not decode them), and a few names seeds and mutations are likely to use.
func prepareFolder() {
    let fm = FileManager.default
    try? fm.removeItem(at: root)
    var paths = [
        "media/en/01.mp3", "media/en/01.srt", "media/cover.jpg", "traces/walk.nmea", "traces/walk.gpx", "a", "b.mp3",
    ]
    let demo = URL(fileURLWithPath: "tours/demo")
    if let walker = fm.enumerator(atPath: demo.path) {
        for case let path as String in walker where path != TourFolder.manifestName {
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: demo.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                paths.append(path)
            }
        }
    }
    for path in paths {
        let url = root.appendingPathComponent(path)
        try? fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = fm.createFile(atPath: url.path, contents: Data())
    }
}

let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    let bytes = data.map { Data(UnsafeBufferPointer(start: $0, count: size)) } ?? Data()
    do { try bytes.write(to: manifest) } catch { preconditionFailure("cannot write \(manifest.path): \(error)") }
    let folder: TourFolder
    do throws(TourModelError) {
        folder = try TourFolder.load(from: root)
    } catch {
        precondition(!error.reason.isEmpty, "a refusal without a reason: \(error.message)")
        return 0
    }
    precondition(!folder.points.isEmpty, "a tour without points")
    precondition(Set(folder.points.map(\.id)).count == folder.points.count, "point ids repeat")
    for (a, b) in zip(folder.points, folder.points.dropFirst()) {
        precondition(a.order < b.order, "points not in ascending, unique order: \(a.order), \(b.order)")
    }
    let inside = root.standardizedFileURL.path + "/"
    func checkMedia(_ url: URL?) {
        guard let url else { return }
        precondition(url.standardizedFileURL.path.hasPrefix(inside), "media outside the folder: \(url.path)")
    }
    for point in folder.points {
        precondition(point.coordinate.isValid, "point off the globe: \(point.coordinate)")
        precondition(
            point.triggerRadiusMeters > 0 && point.triggerRadiusMeters <= 1000, "radius \(point.triggerRadiusMeters)")
        for (code, content) in point.content {
            precondition(folder.languageInfo[code] != nil, "content in \(code), which is not a language of the tour")
            checkMedia(content.audio); checkMedia(content.subtitles); checkMedia(content.image)
        }
    }
    folder.traces.forEach(checkMedia)
    checkMedia(folder.image)
    precondition(
        folder.languageInfo[folder.defaultLanguage] != nil,
        "default language \(folder.defaultLanguage) not in languages")
    for language in [nil, "zz-unknown"] + folder.languages {
        guard let playable = try? folder.playable(language: language) else {
            precondition(language == "zz-unknown", "playable(\(language ?? "default")) refused a language the tour has")
            continue
        }
        precondition(playable.points.map(\.id) == folder.points.map(\.id), "playable points differ from the folder's")
    }
    return 0
}

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data("fuzz-tour: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8))
    exit(2)
}
prepareFolder()
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
