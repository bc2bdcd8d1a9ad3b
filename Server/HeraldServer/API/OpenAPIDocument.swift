// Generated from openapi.json by embed-openapi.sh; edit openapi.json, then run the script.
/// The OpenAPI 3.1 document of `/api/v1`, served at `/api/v1/openapi.json`.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Herald backend API",
    "version": "1.0.0",
    "description": "Lets an app's own server create users and tokens, conversations, messages and bell notifications on a Herald server, and read unread counts. Served on the same port as /sync. Every operation except health and openapi.json needs `Authorization: Bearer <API key>`; keys come from `herald-server apikey create`. A key's scope is `read` (the GET operations only) or `full` (every operation, including minting tokens); a `read` key calling any other operation gets 403 `forbidden`. An expired or revoked key gets 401 like an unknown one. Errors are `{\"error\":{\"code\":\"...\",\"message\":\"...\"}}` with stable codes."
  },
  "servers": [
    {
      "url": "/"
    }
  ],
  "security": [
    {
      "apiKey": []
    }
  ],
  "paths": {
    "/api/v1/health": {
      "get": {
        "operationId": "getHealth",
        "summary": "Health of this node (no API key needed).",
        "security": [],
        "responses": {
          "200": {
            "description": "The node is up.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/openapi.json": {
      "get": {
        "operationId": "getOpenAPI",
        "summary": "This document (no API key needed).",
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI 3.1 document.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    },
    "/api/v1/users": {
      "post": {
        "operationId": "createUser",
        "summary": "Create a user. Repeating it with the same name answers 200; another name is a 409.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CreateUser"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "200": {
            "description": "The user existed with this name.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "409": {
            "$ref": "#/components/responses/Conflict"
          }
        }
      }
    },
    "/api/v1/users/{id}": {
      "get": {
        "operationId": "getUser",
        "summary": "Get a user.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The user.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/users/{id}/tokens": {
      "post": {
        "operationId": "createToken",
        "summary": "Mint an access token for /sync for an existing user.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CreateToken"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "A signed token.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Token"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/users/{id}/notifications": {
      "post": {
        "operationId": "createNotification",
        "summary": "Create a bell notification; every connected device of the user gets a `bell` event.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CreateNotification"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CreatedNotification"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/users/{id}/unread": {
      "get": {
        "operationId": "getUnread",
        "summary": "The user's unread counts per conversation, Messages badge and bell count.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The counts.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Unread"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/users/{id}/signout": {
      "post": {
        "operationId": "signOut",
        "summary": "Sign the user's devices out (every one, or the one named): their live /sync connections close with 4001 at once and the tokens they hold are refused from now on; tokens minted afterwards work.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SignOut"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Signed out.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/SignedOut"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/conversations": {
      "post": {
        "operationId": "createConversation",
        "summary": "Create a direct conversation (or get the existing one) or a group.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CreateConversation"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created; every participant gets a `conversation` event.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Conversation"
                }
              }
            }
          },
          "200": {
            "description": "The direct conversation already existed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Conversation"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      }
    },
    "/api/v1/conversations/{id}/messages": {
      "post": {
        "operationId": "postMessage",
        "summary": "Send a message as a participant, like a client send: idempotent by (sender, clientMessageId), fanned out to every participant's devices.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The conversation id, e.g. c12.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 128
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PostMessage"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Stored and sent.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PostedMessage"
                }
              }
            }
          },
          "200": {
            "description": "A retry of a stored message (duplicate: true); nothing new was sent.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PostedMessage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimitedOrQuota"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/Conflict"
          }
        }
      }
    },
    "/api/v1/conversations/{id}/leave": {
      "post": {
        "operationId": "removeMember",
        "summary": "Take a member out of a group, as if they had left it: they stop receiving it and every participant (their devices too) gets a `left` event. A direct conversation cannot be left (409 conflict); a user who is not in the group is 403.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The conversation id, e.g. c12.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 128
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RemoveMember"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Removed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Removed"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/NotAGroup"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          }
        }
      }
    },
    "/api/v1/users/{id}/push-targets": {
      "get": {
        "operationId": "listPushTargets",
        "summary": "The user's push targets: where each of their devices is alerted while it has no connection (APNs, FCM, Web Push or the app's webhook).",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The targets, by device.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PushTargets"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        }
      },
      "post": {
        "operationId": "registerPushTarget",
        "summary": "Register (or replace) where one of the user's devices is alerted while it has no connection, as the device's own push.register does. The provider must be configured on the server; the fields are checked per provider (APNs: hex token and topic; FCM: token; Web Push: https endpoint with a port 1-65535 if any, 65-byte p256dh, 16-byte auth; webhook: token). A provider the server has no credentials for is a conflict (409), and so is a new device of a user who already has --push-max-targets-per-user targets (10 by default; nothing is stored).",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RegisterPushTarget"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The stored target.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PushTarget"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          },
          "409": {
            "$ref": "#/components/responses/Conflict"
          }
        }
      }
    },
    "/api/v1/users/{id}/push-targets/{device}": {
      "delete": {
        "operationId": "removePushTarget",
        "summary": "Forget a device's push target and the pushes queued for it: it is alerted only while connected.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          },
          {
            "name": "device",
            "in": "path",
            "required": true,
            "description": "The device name.",
            "schema": {
              "$ref": "#/components/schemas/DeviceName"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "Removed.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RemovedPushTarget"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "403": {
            "$ref": "#/components/responses/ReadOnlyKey"
          }
        }
      }
    },
    "/api/v1/messages/{id}": {
      "patch": {
        "operationId": "editMessage",
        "summary": "Edit a text message on behalf of its sender, like the sender's own message.edit (M1): every participant's devices get a message.edited event; nobody is alerted and unread counts do not change. Only the sender (403 otherwise), at most 5 times (409 too_many_edits) and within the edit window (409 too_late); an image (403) or an unsent message (404) cannot be edited.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The message id, e.g. m42.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 128
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/EditMessage"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The message as it is now; a retry (the same text again, an unsend of an unsent message) is answered alike and changes nothing.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RevisedMessage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/TooLate"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimitedOrQuota"
          }
        }
      }
    },
    "/api/v1/messages/{id}/unsend": {
      "post": {
        "operationId": "unsendMessage",
        "summary": "Unsend a message on behalf of its sender, like the sender's own message.unsend (M2): it becomes a placeholder, every participant's devices get a message.unsent event, those who had not read it lose it from their unread counts and its pushes are withdrawn. Only the sender (403 otherwise) and within the unsend window (409 too_late).",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The message id, e.g. m42.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 128
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UnsendMessage"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The message as it is now; a retry (the same text again, an unsend of an unsent message) is answered alike and changes nothing.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RevisedMessage"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "409": {
            "$ref": "#/components/responses/TooLate"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          }
        }
      }
    },
    "/api/v1/users/{id}/mutes": {
      "post": {
        "operationId": "muteConversation",
        "summary": "Mute a conversation for a user, like their own mute (N1): for the given minutes or until unmuted. Its messages still count as unread but alert none of the user's devices (no toast, no push) unless they mention the user (N2); every device of the user gets a settings event. 403 when the user is not in the conversation or it does not exist (R5: the two look alike), or the key is read-only; 404 for an unknown user.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/Mute"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The user's mute of the conversation as it is now.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/MuteState"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "413": {
            "$ref": "#/components/responses/TooLarge"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          }
        }
      }
    },
    "/api/v1/users/{id}/mutes/{conversation}": {
      "delete": {
        "operationId": "unmuteConversation",
        "summary": "End a user's mute of a conversation (N1); answered alike when it was not muted.",
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "The user id.",
            "schema": {
              "$ref": "#/components/schemas/UserId"
            }
          },
          {
            "name": "conversation",
            "in": "path",
            "required": true,
            "description": "The conversation id.",
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 64,
              "description": "A conversation id, e.g. c3."
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The user's mute of the conversation as it is now.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/MuteState"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "429": {
            "$ref": "#/components/responses/RateLimited"
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key from `herald-server apikey create --scope read|full`. `read` keys may call the GET operations only."
      }
    },
    "responses": {
      "BadRequest": {
        "description": "bad_json (not JSON) or bad_request (a field is missing, of the wrong type or out of range).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "unauthorized: no API key, or an unknown, expired or revoked one.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "WWW-Authenticate": {
            "schema": {
              "type": "string"
            }
          }
        }
      },
      "Forbidden": {
        "description": "forbidden: the API key's scope is read (this operation needs a full key), or the sender (or the member to remove) is not a participant of the conversation.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "NotFound": {
        "description": "not_found: no such user or conversation.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Conflict": {
        "description": "conflict: the request conflicts with the current state: the user id exists with another name (create a user), the clientMessageId was used in another conversation (post a message), or the server has no credentials for the push provider (register a push target).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "RateLimited": {
        "description": "rate_limited: too many requests for this API key.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "Retry-After": {
            "schema": {
              "type": "string"
            }
          }
        }
      },
      "ReadOnlyKey": {
        "description": "forbidden: the API key's scope is read; this operation needs a full key.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "RateLimitedOrQuota": {
        "description": "rate_limited: too many requests for this API key; or quota_exceeded: the sender already stored today's allowance of message content (the bytes of text and image URLs per UTC day, --user-daily-quota, 128 MiB unless configured otherwise) and nothing was stored; Retry-After says when the allowance renews (00:00 UTC).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "Retry-After": {
            "schema": {
              "type": "string"
            }
          }
        }
      },
      "NotAGroup": {
        "description": "conflict: the conversation is a direct conversation, and only a group can be left.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "TooLate": {
        "description": "too_late: the time to change the message has passed (15 minutes to edit, 2 minutes to unsend, unless the server was started with other --edit-window/--unsend-window); too_many_edits: it was edited 5 times already; conflict (edit only): the message is an image or was unsent.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "TooLarge": {
        "description": "too_large: the request body exceeds the server's limit (--api-max-body); the connection is closed after this answer.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    },
    "schemas": {
      "UserId": {
        "type": "string",
        "pattern": "^[A-Za-z0-9_-][A-Za-z0-9._@-]{0,127}$",
        "minLength": 1,
        "maxLength": 128,
        "description": "A user id: 1-128 of A-Z a-z 0-9 . _ @ - (not starting with . or @)."
      },
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "description": "bad_request, bad_json, unauthorized, forbidden, not_found, method_not_allowed, conflict, too_large, rate_limited, quota_exceeded, headers_too_large, internal, unavailable"
              },
              "message": {
                "type": "string"
              }
            }
          }
        }
      },
      "Health": {
        "type": "object",
        "required": [
          "status",
          "connections",
          "uptimeSeconds",
          "version"
        ],
        "properties": {
          "status": {
            "type": "string",
            "enum": [
              "ok"
            ]
          },
          "connections": {
            "type": "integer",
            "minimum": 0
          },
          "uptimeSeconds": {
            "type": "integer",
            "minimum": 0
          },
          "version": {
            "type": "string"
          }
        }
      },
      "CreateUser": {
        "type": "object",
        "required": [
          "id",
          "name"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/UserId"
          },
          "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": 100,
            "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028-\\u202E\\u2066-\\u2069]+$",
            "description": "Any script; no control characters, line or paragraph separators, or bidirectional overrides."
          }
        }
      },
      "User": {
        "type": "object",
        "required": [
          "id",
          "name"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          }
        }
      },
      "CreateToken": {
        "type": "object",
        "properties": {
          "ttlSeconds": {
            "type": "integer",
            "minimum": 1,
            "maximum": 31536000,
            "default": 2592000
          },
          "device": {
            "$ref": "#/components/schemas/DeviceName"
          }
        }
      },
      "Token": {
        "type": "object",
        "required": [
          "token",
          "user",
          "expiresAt"
        ],
        "properties": {
          "token": {
            "type": "string",
            "description": "Pass to /sync as `Authorization: Bearer <token>`."
          },
          "user": {
            "$ref": "#/components/schemas/User"
          },
          "expiresAt": {
            "type": "integer",
            "description": "Unix seconds."
          }
        }
      },
      "CreateConversation": {
        "oneOf": [
          {
            "type": "object",
            "required": [
              "kind",
              "members"
            ],
            "properties": {
              "kind": {
                "const": "direct"
              },
              "members": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {
                  "$ref": "#/components/schemas/UserId"
                }
              }
            }
          },
          {
            "type": "object",
            "required": [
              "kind",
              "title",
              "creator",
              "members"
            ],
            "properties": {
              "kind": {
                "const": "group"
              },
              "title": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "pattern": "^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028-\\u202E\\u2066-\\u2069]+$",
                "description": "Shown on every member's screen, so the display-name rule: any script; no control characters, line or paragraph separators, or bidirectional overrides (400 bad_request, nothing stored)."
              },
              "creator": {
                "$ref": "#/components/schemas/UserId"
              },
              "members": {
                "type": "array",
                "minItems": 1,
                "maxItems": 1000,
                "items": {
                  "$ref": "#/components/schemas/UserId"
                }
              }
            }
          }
        ]
      },
      "Participant": {
        "type": "object",
        "required": [
          "id",
          "name"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          }
        }
      },
      "Conversation": {
        "type": "object",
        "required": [
          "id",
          "kind",
          "participants",
          "lastActivity"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "kind": {
            "type": "string",
            "enum": [
              "direct",
              "group"
            ]
          },
          "title": {
            "type": "string"
          },
          "participants": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Participant"
            }
          },
          "lastActivity": {
            "type": "integer",
            "description": "ms since the epoch"
          }
        }
      },
      "PostMessage": {
        "type": "object",
        "required": [
          "sender",
          "clientMessageId"
        ],
        "anyOf": [
          {
            "required": [
              "text"
            ]
          },
          {
            "required": [
              "imageURL"
            ]
          }
        ],
        "properties": {
          "sender": {
            "$ref": "#/components/schemas/UserId"
          },
          "clientMessageId": {
            "type": "string",
            "minLength": 1,
            "maxLength": 128,
            "pattern": "^[!-~]+$",
            "description": "Idempotency key (printable ASCII, no spaces): a retry with the same one in the same conversation stores nothing new; the same one in another conversation is refused with 409 conflict."
          },
          "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096,
            "pattern": "^[^\\u0000]*$"
          },
          "imageURL": {
            "type": "string",
            "pattern": "^(?![Hh][Tt][Tt][Pp][Ss]?://[^/?#]*\\.[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]([:/?#]|$))[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9-]{1,63}\\.)+[A-Za-z]{2,63}(:[0-9]{1,5})?([/?#][!-~]*)?$",
            "maxLength": 2048,
            "description": "http or https with a DNS host name: no credentials, IP addresses or localhost; printable ASCII (percent-encode the rest)."
          }
        }
      },
      "Message": {
        "type": "object",
        "required": [
          "id",
          "conversation",
          "sender",
          "senderName",
          "kind",
          "createdAt"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "conversation": {
            "type": "string"
          },
          "sender": {
            "type": "string"
          },
          "senderName": {
            "type": "string"
          },
          "kind": {
            "type": "string",
            "enum": [
              "text",
              "image"
            ]
          },
          "text": {
            "type": "string"
          },
          "imageURL": {
            "type": "string"
          },
          "clientMessageId": {
            "type": "string"
          },
          "createdAt": {
            "type": "integer"
          },
          "edited": {
            "type": "boolean",
            "description": "True once the sender edited the text (M1)."
          },
          "editedAt": {
            "type": "integer",
            "description": "When the text was last edited, ms since the epoch (M1)."
          },
          "editCount": {
            "type": "integer",
            "description": "How many times the text was edited (M1); absent before the first edit."
          },
          "unsent": {
            "type": "boolean",
            "description": "True when the sender unsent the message (M2): no text or imageURL is left."
          }
        }
      },
      "PostedMessage": {
        "type": "object",
        "required": [
          "message",
          "duplicate"
        ],
        "properties": {
          "message": {
            "$ref": "#/components/schemas/Message"
          },
          "duplicate": {
            "type": "boolean"
          }
        }
      },
      "CreateNotification": {
        "type": "object",
        "required": [
          "kind",
          "text"
        ],
        "properties": {
          "kind": {
            "type": "string",
            "enum": [
              "follow",
              "reaction",
              "comment",
              "mention",
              "reminder",
              "system"
            ]
          },
          "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1000,
            "pattern": "^[^\\u0000]*$"
          },
          "url": {
            "type": "string",
            "minLength": 1,
            "maxLength": 2048,
            "pattern": "^([Hh][Ee][Rr][Aa][Ll][Dd]://[!-~]+|(?![Hh][Tt][Tt][Pp][Ss]?://[^/?#]*\\.[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]([:/?#]|$))[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9-]{1,63}\\.)+[A-Za-z]{2,63}(:[0-9]{1,5})?([/?#][!-~]*)?)$",
            "description": "A D1 deep link (e.g. herald://conversation/c1) or an http/https URL with a DNS host name."
          },
          "actor": {
            "allOf": [
              {
                "$ref": "#/components/schemas/UserId"
              }
            ],
            "description": "An existing user (who followed, reacted, …); an unknown one is 404."
          }
        }
      },
      "Notification": {
        "type": "object",
        "required": [
          "id",
          "kind",
          "text",
          "read",
          "createdAt"
        ],
        "properties": {
          "id": {
            "type": "string"
          },
          "kind": {
            "type": "string",
            "enum": [
              "follow",
              "reaction",
              "comment",
              "mention",
              "reminder",
              "system"
            ]
          },
          "actor": {
            "type": "string"
          },
          "text": {
            "type": "string"
          },
          "url": {
            "type": "string"
          },
          "read": {
            "type": "boolean"
          },
          "createdAt": {
            "type": "integer"
          }
        }
      },
      "CreatedNotification": {
        "type": "object",
        "required": [
          "notification",
          "bellUnread",
          "bellBadgeText"
        ],
        "properties": {
          "notification": {
            "$ref": "#/components/schemas/Notification"
          },
          "bellUnread": {
            "type": "integer",
            "minimum": 0
          },
          "bellBadgeText": {
            "type": "string"
          }
        }
      },
      "Unread": {
        "type": "object",
        "required": [
          "user",
          "conversations",
          "badge",
          "badgeText",
          "bellUnread",
          "bellBadgeText",
          "latest"
        ],
        "properties": {
          "user": {
            "type": "string"
          },
          "conversations": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "conversation",
                "unread"
              ],
              "properties": {
                "conversation": {
                  "type": "string"
                },
                "unread": {
                  "type": "integer",
                  "minimum": 0
                }
              }
            }
          },
          "badge": {
            "type": "integer",
            "minimum": 0
          },
          "badgeText": {
            "type": "string",
            "description": "U5: empty at 0, 1-99, then 99+."
          },
          "bellUnread": {
            "type": "integer",
            "minimum": 0
          },
          "bellBadgeText": {
            "type": "string"
          },
          "latest": {
            "type": "integer",
            "description": "The user's stream sequence these counts reflect (U7)."
          }
        }
      },
      "DeviceName": {
        "type": "string",
        "pattern": "^[A-Za-z0-9._-]{1,64}$",
        "description": "A device name. A token minted for a device connects under that name only, and signing that device out refuses it."
      },
      "SignOut": {
        "type": "object",
        "properties": {
          "device": {
            "$ref": "#/components/schemas/DeviceName"
          }
        },
        "description": "Without a device every device of the user is signed out."
      },
      "SignedOut": {
        "type": "object",
        "required": [
          "user"
        ],
        "properties": {
          "user": {
            "type": "string"
          },
          "device": {
            "type": "string"
          }
        }
      },
      "RemoveMember": {
        "type": "object",
        "required": [
          "user"
        ],
        "properties": {
          "user": {
            "$ref": "#/components/schemas/UserId"
          }
        }
      },
      "Removed": {
        "type": "object",
        "required": [
          "conversation",
          "user"
        ],
        "properties": {
          "conversation": {
            "type": "string"
          },
          "user": {
            "type": "string"
          }
        }
      },
      "RegisterPushTarget": {
        "type": "object",
        "required": [
          "device",
          "provider"
        ],
        "properties": {
          "device": {
            "$ref": "#/components/schemas/DeviceName"
          },
          "provider": {
            "type": "string",
            "enum": [
              "apns",
              "fcm",
              "webpush",
              "webhook"
            ]
          },
          "token": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096,
            "description": "APNs device token (hex), FCM registration token, or the app's own id for the device (webhook)."
          },
          "topic": {
            "type": "string",
            "minLength": 1,
            "maxLength": 255,
            "description": "APNs: the app's bundle id."
          },
          "sandbox": {
            "type": "boolean",
            "description": "APNs: the development environment."
          },
          "endpoint": {
            "type": "string",
            "minLength": 1,
            "maxLength": 2048,
            "description": "Web Push: the subscription's endpoint, https:// with a DNS host name (no IP address, localhost or single-label name: the server posts to it), with a port 1-65535 if any."
          },
          "p256dh": {
            "type": "string",
            "minLength": 1,
            "maxLength": 128,
            "description": "Web Push: the subscription's P-256 public key, base64url."
          },
          "auth": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "description": "Web Push: the subscription's auth secret, base64url."
          }
        }
      },
      "PushTarget": {
        "type": "object",
        "required": [
          "user",
          "device",
          "provider",
          "token",
          "sandbox",
          "updatedAt"
        ],
        "properties": {
          "user": {
            "type": "string"
          },
          "device": {
            "type": "string"
          },
          "provider": {
            "type": "string",
            "enum": [
              "apns",
              "fcm",
              "webpush",
              "webhook"
            ]
          },
          "token": {
            "type": "string",
            "description": "The provider token, or the Web Push endpoint."
          },
          "topic": {
            "type": "string"
          },
          "sandbox": {
            "type": "boolean"
          },
          "updatedAt": {
            "type": "integer",
            "description": "Milliseconds since the epoch."
          }
        }
      },
      "PushTargets": {
        "type": "object",
        "required": [
          "user",
          "targets"
        ],
        "properties": {
          "user": {
            "type": "string"
          },
          "targets": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/PushTarget"
            }
          }
        }
      },
      "RemovedPushTarget": {
        "type": "object",
        "required": [
          "user",
          "device"
        ],
        "properties": {
          "user": {
            "type": "string"
          },
          "device": {
            "type": "string"
          }
        }
      },
      "EditMessage": {
        "type": "object",
        "required": [
          "user",
          "text"
        ],
        "properties": {
          "user": {
            "$ref": "#/components/schemas/UserId",
            "description": "The message's sender, on whose behalf the edit is made."
          },
          "text": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4096,
            "pattern": "^[^\\u0000]*$"
          }
        }
      },
      "UnsendMessage": {
        "type": "object",
        "required": [
          "user"
        ],
        "properties": {
          "user": {
            "$ref": "#/components/schemas/UserId",
            "description": "The message's sender, on whose behalf the unsend is made."
          }
        }
      },
      "RevisedMessage": {
        "type": "object",
        "required": [
          "message"
        ],
        "properties": {
          "message": {
            "$ref": "#/components/schemas/Message"
          }
        }
      },
      "Mute": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "conversation"
        ],
        "properties": {
          "conversation": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "description": "A conversation id, e.g. c3."
          },
          "minutes": {
            "type": "integer",
            "minimum": 1,
            "maximum": 525600,
            "description": "How long; absent: until unmuted."
          }
        }
      },
      "MuteState": {
        "type": "object",
        "required": [
          "user",
          "conversation",
          "muted"
        ],
        "properties": {
          "user": {
            "$ref": "#/components/schemas/UserId"
          },
          "conversation": {
            "type": "string"
          },
          "muted": {
            "type": "boolean"
          },
          "mutedUntil": {
            "type": "integer",
            "description": "When the mute ends, ms since the epoch; absent while muted until unmuted, and when not muted."
          }
        }
      }
    }
  }
}

"""#
}
