import HeraldCrypto
import Testing

/// RFC 8291 §5 (and Appendix A): the specification's own example, reproduced byte for byte in both directions.
@Suite("Web Push: RFC 8291 §5 / Appendix A example")
struct WebPushVectorTests {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    @Test("RFC 8291 §5: the example's private keys give the example's public keys")
    func publicKeysFromPrivate() throws {
        #expect(try P256PrivateKey(rawPrivateKey: b64(Self.senderPrivate)).publicKey == b64(Self.senderPublic))
        let receiver = try P256PrivateKey(rawPrivateKey: b64(Self.receiverPrivate))
        #expect(receiver.publicKey == (try b64(Self.receiverPublic)))
        #expect(receiver.rawPrivateKey == (try b64(Self.receiverPrivate)))
    }

    @Test("RFC 8291 §5: the user agent decrypts the example body to the watermelon sentence")
    func decryptExample() throws {
        let receiver = try P256PrivateKey(rawPrivateKey: b64(Self.receiverPrivate))
        let plaintext = try WebPushEncryption.decrypt(b64(Self.body), receiverKey: receiver, authSecret: b64(Self.authSecret))
        #expect(String(decoding: plaintext, as: UTF8.self) == Self.plaintext)
    }

    @Test("RFC 8291 §5: with the example's sender key and salt, encryption yields the example body exactly")
    func encryptExample() throws {
        let body = try WebPushEncryption.encrypt(
            Array(Self.plaintext.utf8), receiverPublicKey: b64(Self.receiverPublic), authSecret: b64(Self.authSecret),
            senderKey: P256PrivateKey(rawPrivateKey: b64(Self.senderPrivate)), salt: b64(Self.salt))
        #expect(Base64URL.encode(body) == Self.body)
        // RFC 8291 §4: header = salt 16 | rs 4096 | idlen 65 | keyid = the sender's public key.
        #expect(body.count == 86 + Self.plaintext.utf8.count + 1 + 16)
        #expect(Array(body[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
    }
}
