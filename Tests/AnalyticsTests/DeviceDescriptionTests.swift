import Analytics
import Foundation
import TestSupport
import Testing

@Suite struct DeviceDescriptionTests {
    @Test func aBoardIsNamedByItsDeviceTreeModelAndTheSystemByOsRelease() throws {
        let root = try TemporaryDirectory()
        try root.write("sys/firmware/devicetree/base/model", "Raspberry Pi 4 Model B Rev 1.4\u{0}")
        try root.write("sys/class/dmi/id/product_name", "ignored\n")
        try root.write(
            "etc/os-release",
            "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
        let d = DeviceDescription.current(root: root.url)
        #expect(d.device == "Raspberry Pi 4 Model B Rev 1.4")
        #expect(d.osVersion == "Debian GNU/Linux 12 (bookworm)")
    }

    @Test func aPCIsNamedByVendorAndProductAndPlaceholdersAreSkipped() throws {
        let root = try TemporaryDirectory()
        try root.write("sys/class/dmi/id/product_name", "XPS 13 9310\n")
        try root.write("sys/class/dmi/id/sys_vendor", "Dell Inc.\n")
        try root.write("etc/os-release", "NAME=Fedora\nVERSION_ID=40\n")
        #expect(
            DeviceDescription.current(root: root.url)
                == DeviceDescription(device: "Dell Inc. XPS 13 9310", osVersion: "Fedora 40"))

        let oem = try TemporaryDirectory()
        try oem.write("sys/class/dmi/id/product_name", "To Be Filled By O.E.M.\n")
        let d = DeviceDescription.current(root: oem.url)
        #expect(d.device.hasPrefix("Linux ") && !d.device.contains("O.E.M."))
        #expect(d.osVersion.hasPrefix("Linux "))
    }

    @Test func theAnonymousIdIsMadeOnceAndKept() throws {
        let home = try TemporaryDirectory()
        let url = home.file("config/anonymous-id")
        let first = try AnonymousID.load(orCreateAt: url)
        #expect(UUID(uuidString: first) != nil)
        #expect(try AnonymousID.load(orCreateAt: url) == first)
        try home.write("config/anonymous-id", "not an id\n")
        let replaced = try AnonymousID.load(orCreateAt: url)
        #expect(replaced != first && UUID(uuidString: replaced) != nil)
    }
}
