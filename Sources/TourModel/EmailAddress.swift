import Foundation

/// An e-mail address as compared and kept: trimmed, in one Unicode form (NFKC, so a precomposed
/// or combining accent and full-width letters are one address), in lower case. The one rule for
/// the server's accounts and for the client's check that a login answered the account asked for.
public enum EmailAddress {
    public static func normalized(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCompatibilityMapping.lowercased()
    }
}
