import Foundation

/// `device` and `osVersion` for a Linux machine, as the service's dashboard groups them (the mobile
/// apps send a phone model and the OS release).
///
/// - `device`: the model the firmware names: the device tree's `model` on boards and handhelds
///   ("Raspberry Pi 4 Model B Rev 1.4"), else DMI's vendor and product ("LENOVO 20KHCTO1WW"), else
///   "Linux" and the machine architecture. Never the host name or a serial number: a model is
///   shared by many machines, a host name points at one.
/// - `osVersion`: the distribution as it names itself (`PRETTY_NAME` of os-release, "Debian
///   GNU/Linux 12 (bookworm)"), else "Linux" and the kernel release.
public struct DeviceDescription: Sendable, Hashable {
    public var device: String
    public var osVersion: String

    public init(device: String, osVersion: String) {
        self.device = device
        self.osVersion = osVersion
    }

    /// Read from the running system (`root` for tests).
    public static func current(root: URL = URL(fileURLWithPath: "/")) -> DeviceDescription {
        var system = utsname()
        uname(&system)
        let machine = field(&system.machine)
        let release = field(&system.release)
        func file(_ path: String) -> String? {
            FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        var device = file("sys/firmware/devicetree/base/model").flatMap(clean)
        if device == nil, let product = file("sys/class/dmi/id/product_name").flatMap(clean) {
            let vendor = file("sys/class/dmi/id/sys_vendor").flatMap(clean)
            device = [vendor, product].compactMap { $0 }.joined(separator: " ")
        }
        let os = (file("etc/os-release") ?? file("usr/lib/os-release")).flatMap(prettyName)
        return DeviceDescription(device: device ?? "Linux \(machine)", osVersion: os ?? "Linux \(release)")
    }

    /// Values firmware vendors leave in place of a name.
    static let placeholders: Set<String> = [
        "to be filled by o.e.m.", "system product name", "default string", "system manufacturer", "not applicable",
        "none", "unknown", "o.e.m.", "oem", "123456789",
    ]

    /// Printable, trimmed, at most 100 characters; nil for empty and placeholder values.
    static func clean(_ text: String) -> String? {
        let printable = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        let trimmed = printable.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !placeholders.contains(trimmed.lowercased()) else { return nil }
        return String(trimmed.prefix(100))
    }

    /// `PRETTY_NAME`, else `NAME VERSION_ID`, of an os-release file.
    static func prettyName(_ text: String) -> String? {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[String(line[..<eq])] = value
        }
        if let pretty = values["PRETTY_NAME"].flatMap(clean) { return pretty }
        guard let name = values["NAME"] else { return nil }
        return clean([name, values["VERSION_ID"]].compactMap { $0 }.joined(separator: " "))
    }

    private static func field<T>(_ value: inout T) -> String {
        withUnsafeBytes(of: &value) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
