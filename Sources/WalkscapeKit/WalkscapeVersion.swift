import BuildInfo

/// The version walkscape says it is (`--version`, the User-Agent, `doctor`): BuildInfo's, whose one
/// place is debian/changelog.
package enum WalkscapeVersion {
    package static let current = BuildInfo.version
}
