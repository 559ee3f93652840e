/// The version walkscape says it is (`--version`, the User-Agent, `doctor`): one place.
package enum WalkscapeVersion {
    package static let current = "0.1.0"
}
