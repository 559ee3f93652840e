/// What this build is: the version (debian/changelog's, its one place) and the commit it was built
/// from. Both programs say them in `--version`; the walker sends the version in its User-Agent.
/// The values are written before each build by the BuildInfo plugin (scripts/build-info.sh).
public enum BuildInfo {
    /// `walkscape 0.2.0 (commit 1a2b3c4d5e6f)`.
    public static func line(program: String) -> String { "\(program) \(version) (commit \(commit))" }
}
