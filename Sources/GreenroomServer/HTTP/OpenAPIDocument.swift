// The OpenAPI 3.1 document of the REST API, as docs/openapi.json holds it (a test keeps the two
// the same, and the document and the router's routes in agreement). Edit docs/openapi.json,
// then paste it here between the delimiters.

/// The REST API's OpenAPI document, served at `GET /openapi.json`.
enum OpenAPIDocument {
    /// The document's JSON text.
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Greenroom REST API",
    "version": "1",
    "description": "The REST API of a Greenroom server: the app's backend (with the server API key) and a few calls of clients (with a client token). The realtime protocol itself is a WebSocket at /v1/connect (docs/PROTOCOL.md)."
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080"
    }
  ],
  "components": {
    "schemas": {
      "Error": {
        "type": "object",
        "properties": {
          "error": {
            "type": "object",
            "properties": {
              "code": {
                "type": "integer"
              },
              "name": {
                "type": "string"
              },
              "message": {
                "type": "string"
              }
            },
            "required": [
              "code",
              "name",
              "message"
            ]
          }
        },
        "required": [
          "error"
        ],
        "description": "Every error: a stable numeric code, its name and a message for people (docs/PROTOCOL.md, Error codes)."
      },
      "User": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "nickname": {
            "type": "string"
          },
          "profileURL": {
            "type": "string"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "updatedAt": {
            "type": "string",
            "format": "date-time"
          }
        },
        "required": [
          "id",
          "nickname",
          "createdAt",
          "updatedAt"
        ]
      },
      "UserPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/User"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          }
        },
        "required": [
          "items"
        ]
      },
      "UserArgs": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "nickname": {
            "type": "string"
          },
          "profileURL": {
            "type": "string"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          }
        },
        "description": "A user's fields; `id` when creating.",
        "examples": [
          {
            "id": "alice",
            "nickname": "Alice",
            "extraData": {
              "team": "blue"
            }
          }
        ]
      },
      "UserPartialUpdate": {
        "type": "object",
        "properties": {
          "set": {
            "type": "object",
            "properties": {
              "nickname": {
                "type": "string"
              },
              "profileURL": {
                "type": "string"
              },
              "extraData": {
                "type": "object",
                "additionalProperties": true,
                "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
              }
            }
          },
          "unset": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "examples": [
          {
            "set": {
              "nickname": "Ally"
            },
            "unset": [
              "profileURL"
            ]
          }
        ]
      },
      "StreamEvent": {
        "type": "object",
        "properties": {
          "stream": {
            "type": "string"
          },
          "offset": {
            "type": "integer"
          },
          "epoch": {
            "type": "string"
          },
          "type": {
            "type": "string"
          },
          "data": {},
          "at": {
            "type": "string",
            "format": "date-time"
          }
        },
        "required": [
          "stream",
          "offset",
          "epoch",
          "type",
          "at"
        ]
      },
      "Publish": {
        "type": "object",
        "properties": {
          "type": {
            "type": "string"
          },
          "data": {},
          "idempotencyKey": {
            "type": "string"
          }
        },
        "required": [
          "data"
        ],
        "examples": [
          {
            "type": "score",
            "data": {
              "home": 2,
              "away": 1
            },
            "idempotencyKey": "goal-17"
          }
        ]
      },
      "BatchPublish": {
        "type": "object",
        "properties": {
          "events": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "stream": {
                  "type": "string"
                },
                "type": {
                  "type": "string"
                },
                "data": {},
                "idempotencyKey": {
                  "type": "string"
                }
              },
              "required": [
                "stream",
                "data"
              ]
            }
          }
        },
        "required": [
          "events"
        ],
        "examples": [
          {
            "events": [
              {
                "stream": "app:scores",
                "type": "score",
                "data": {
                  "home": 3
                }
              },
              {
                "stream": "user:alice",
                "data": {
                  "hint": "new badge"
                }
              }
            ]
          }
        ]
      },
      "BatchPublishResult": {
        "type": "object",
        "properties": {
          "results": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "event": {
                  "$ref": "#/components/schemas/StreamEvent"
                },
                "duplicate": {
                  "type": "boolean"
                }
              },
              "required": [
                "event",
                "duplicate"
              ]
            }
          }
        },
        "required": [
          "results"
        ]
      },
      "ChannelMember": {
        "type": "object",
        "properties": {
          "userId": {
            "type": "string"
          },
          "channelId": {
            "type": "string"
          },
          "state": {
            "type": "string",
            "enum": [
              "joined",
              "invited"
            ]
          },
          "isOperator": {
            "type": "boolean"
          },
          "inviterId": {
            "type": "string"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          }
        },
        "required": [
          "userId",
          "channelId",
          "state",
          "isOperator",
          "createdAt"
        ]
      },
      "Channel": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "coverURL": {
            "type": "string"
          },
          "isPublic": {
            "type": "boolean"
          },
          "isDistinct": {
            "type": "boolean"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "createdBy": {
            "type": "string"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "updatedAt": {
            "type": "string",
            "format": "date-time"
          },
          "lastMessageAt": {
            "type": "string",
            "format": "date-time"
          },
          "memberCount": {
            "type": "integer"
          },
          "membership": {
            "$ref": "#/components/schemas/ChannelMember"
          }
        },
        "required": [
          "id",
          "name",
          "isPublic",
          "isDistinct",
          "createdBy",
          "createdAt",
          "updatedAt",
          "memberCount"
        ]
      },
      "ChannelCreate": {
        "type": "object",
        "properties": {
          "createdBy": {
            "type": "string"
          },
          "id": {
            "type": "string"
          },
          "name": {
            "type": "string"
          },
          "coverURL": {
            "type": "string"
          },
          "isPublic": {
            "type": "boolean"
          },
          "isDistinct": {
            "type": "boolean"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "members": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "operators": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "required": [
          "createdBy"
        ],
        "examples": [
          {
            "createdBy": "alice",
            "id": "general",
            "name": "General",
            "members": [
              "bob"
            ],
            "operators": [
              "alice"
            ]
          }
        ]
      },
      "ChannelPartialUpdate": {
        "type": "object",
        "properties": {
          "name": {
            "type": "string"
          },
          "coverURL": {
            "type": "string"
          },
          "isPublic": {
            "type": "boolean"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "unset": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "examples": [
          {
            "name": "General chat",
            "unset": [
              "coverURL"
            ]
          }
        ]
      },
      "Message": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "channelId": {
            "type": "string"
          },
          "senderId": {
            "type": "string"
          },
          "text": {
            "type": "string"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "sequence": {
            "type": "integer"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "updatedAt": {
            "type": "string",
            "format": "date-time"
          },
          "deletedAt": {
            "type": "string",
            "format": "date-time"
          },
          "reactions": {
            "type": "array",
            "items": {
              "type": "object"
            }
          }
        },
        "required": [
          "id",
          "channelId",
          "senderId",
          "text",
          "sequence",
          "createdAt",
          "updatedAt"
        ]
      },
      "MessageSend": {
        "type": "object",
        "properties": {
          "userId": {
            "type": "string"
          },
          "text": {
            "type": "string"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "idempotencyKey": {
            "type": "string"
          }
        },
        "required": [
          "userId",
          "text"
        ],
        "examples": [
          {
            "userId": "alice",
            "text": "Hello!",
            "idempotencyKey": "m-1"
          }
        ]
      },
      "MessagePartialUpdate": {
        "type": "object",
        "properties": {
          "text": {
            "type": "string"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "unsetProperties": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "examples": [
          {
            "text": "Hello again",
            "unsetProperties": [
              "mood"
            ]
          }
        ]
      },
      "Meeting": {
        "type": "object",
        "properties": {
          "meetingId": {
            "type": "string"
          },
          "state": {
            "type": "string"
          },
          "createdBy": {
            "type": "string"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "endedAt": {
            "type": "string",
            "format": "date-time"
          },
          "participants": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "pins": {
            "type": "object"
          }
        },
        "required": [
          "meetingId",
          "state",
          "createdBy",
          "createdAt",
          "participants"
        ]
      },
      "VideoRendition": {
        "type": "object",
        "properties": {
          "name": {
            "type": "string"
          },
          "width": {
            "type": "integer"
          },
          "height": {
            "type": "integer"
          },
          "bandwidth": {
            "type": "integer"
          },
          "playlistURL": {
            "type": "string"
          }
        },
        "required": [
          "name",
          "width",
          "height",
          "bandwidth",
          "playlistURL"
        ]
      },
      "Video": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "owner": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "tags": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "status": {
            "type": "string",
            "enum": [
              "uploading",
              "processing",
              "ready",
              "failed"
            ]
          },
          "failureReason": {
            "type": "string"
          },
          "width": {
            "type": "integer"
          },
          "height": {
            "type": "integer"
          },
          "duration": {
            "type": "number"
          },
          "codec": {
            "type": "string"
          },
          "size": {
            "type": "integer"
          },
          "thumbnailURL": {
            "type": "string"
          },
          "playbackURL": {
            "type": "string"
          },
          "hlsURL": {
            "type": "string"
          },
          "renditions": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/VideoRendition"
            }
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "updatedAt": {
            "type": "string",
            "format": "date-time"
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          }
        },
        "required": [
          "id",
          "owner",
          "title",
          "tags",
          "status",
          "createdAt",
          "updatedAt"
        ]
      },
      "VideoPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Video"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          },
          "totalCount": {
            "type": "integer"
          }
        },
        "required": [
          "items",
          "totalCount"
        ]
      },
      "VideoCreate": {
        "type": "object",
        "properties": {
          "title": {
            "type": "string"
          },
          "tags": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          },
          "size": {
            "type": "integer"
          }
        },
        "examples": [
          {
            "title": "Sunset",
            "tags": [
              "beach"
            ],
            "size": 1048576
          }
        ]
      },
      "VideoUpdate": {
        "type": "object",
        "properties": {
          "title": {
            "type": "string"
          },
          "tags": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "extraData": {
            "type": "object",
            "additionalProperties": true,
            "description": "Extra data: any JSON object, at most 5 KB, without reserved keys."
          }
        },
        "examples": [
          {
            "title": "Sunset, again",
            "tags": [
              "beach",
              "evening"
            ]
          }
        ]
      },
      "VideoUploadTicket": {
        "type": "object",
        "properties": {
          "video": {
            "$ref": "#/components/schemas/Video"
          },
          "uploadId": {
            "type": "string"
          },
          "offset": {
            "type": "integer"
          }
        },
        "required": [
          "video",
          "uploadId",
          "offset"
        ]
      },
      "UploadOffset": {
        "type": "object",
        "properties": {
          "offset": {
            "type": "integer"
          }
        },
        "required": [
          "offset"
        ]
      },
      "WebhookEndpoint": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "url": {
            "type": "string"
          },
          "events": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "secret": {
            "type": "string"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          }
        },
        "required": [
          "id",
          "url",
          "events",
          "createdAt"
        ]
      },
      "WebhookCreate": {
        "type": "object",
        "properties": {
          "url": {
            "type": "string",
            "format": "uri"
          },
          "events": {
            "type": "array",
            "items": {
              "type": "string"
            }
          }
        },
        "required": [
          "url"
        ],
        "examples": [
          {
            "url": "https://backend.example.com/greenroom",
            "events": [
              "message.*",
              "member.*"
            ]
          }
        ]
      },
      "WebhookEndpointList": {
        "type": "object",
        "properties": {
          "endpoints": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/WebhookEndpoint"
            }
          }
        },
        "required": [
          "endpoints"
        ]
      },
      "WebhookEvent": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "type": {
            "type": "string"
          },
          "stream": {
            "type": "string"
          },
          "offset": {
            "type": "integer"
          },
          "epoch": {
            "type": "string"
          },
          "at": {
            "type": "string",
            "format": "date-time"
          },
          "data": {}
        },
        "required": [
          "id",
          "type",
          "stream",
          "offset",
          "epoch",
          "at"
        ]
      },
      "WebhookDelivery": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "endpointId": {
            "type": "string"
          },
          "event": {
            "$ref": "#/components/schemas/WebhookEvent"
          },
          "attempts": {
            "type": "integer"
          },
          "lastError": {
            "type": "string"
          },
          "parkedAt": {
            "type": "string",
            "format": "date-time"
          }
        },
        "required": [
          "id",
          "endpointId",
          "event",
          "attempts",
          "parkedAt"
        ]
      },
      "WebhookDeliveryPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/WebhookDelivery"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          }
        },
        "required": [
          "items"
        ]
      },
      "WebhookReplay": {
        "type": "object",
        "properties": {
          "deliveryId": {
            "type": "string"
          }
        },
        "examples": [
          {
            "deliveryId": "app:scores/3f2a9c/42"
          }
        ]
      },
      "WebhookReplayResult": {
        "type": "object",
        "properties": {
          "replayed": {
            "type": "integer"
          }
        },
        "required": [
          "replayed"
        ]
      },
      "PushTemplate": {
        "type": "object",
        "properties": {
          "title": {
            "type": "string"
          },
          "body": {
            "type": "string"
          },
          "invitationTitle": {
            "type": "string"
          },
          "invitationBody": {
            "type": "string"
          }
        },
        "examples": [
          {
            "title": "{{channel.name}}",
            "body": "{{sender.nickname}}: {{message.text}}"
          }
        ]
      },
      "Disconnect": {
        "type": "object",
        "properties": {
          "userId": {
            "type": "string"
          },
          "cut": {
            "type": "boolean"
          }
        },
        "examples": [
          {
            "userId": "alice"
          }
        ]
      },
      "Disconnected": {
        "type": "object",
        "properties": {
          "disconnected": {
            "type": "integer"
          }
        },
        "required": [
          "disconnected"
        ]
      },
      "MeetingCreate": {
        "type": "object",
        "properties": {
          "meetingId": {
            "type": "string"
          }
        },
        "examples": [
          {
            "meetingId": "standup"
          }
        ]
      },
      "Health": {
        "type": "object",
        "properties": {
          "status": {
            "type": "string"
          }
        },
        "required": [
          "status"
        ]
      },
      "ChannelPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Channel"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          }
        },
        "required": [
          "items"
        ]
      },
      "LiveEvent": {
        "type": "object",
        "properties": {
          "liveEventId": {
            "type": "string"
          },
          "type": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "coverURL": {
            "type": "string"
          },
          "state": {
            "type": "string",
            "enum": [
              "created",
              "ready",
              "ongoing",
              "ended"
            ]
          },
          "userIdsForHost": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "hosts": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "participantCount": {
            "type": "integer"
          },
          "peakParticipantCount": {
            "type": "integer"
          },
          "cumulativeParticipantCount": {
            "type": "integer"
          },
          "createdBy": {
            "type": "string"
          },
          "createdAt": {
            "type": "string",
            "format": "date-time"
          },
          "setReadyAt": {
            "type": "string",
            "format": "date-time"
          },
          "startedAt": {
            "type": "string",
            "format": "date-time"
          },
          "endedAt": {
            "type": "string",
            "format": "date-time"
          },
          "endedBy": {
            "type": "string"
          },
          "reactionKeys": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "reactionCounts": {
            "type": "object"
          },
          "customItems": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            }
          }
        },
        "required": [
          "liveEventId",
          "state",
          "userIdsForHost",
          "hosts",
          "participantCount",
          "createdBy",
          "createdAt"
        ]
      },
      "LiveEventPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/LiveEvent"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          }
        },
        "required": [
          "items"
        ]
      },
      "MeetingPage": {
        "type": "object",
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Meeting"
            }
          },
          "next": {
            "anyOf": [
              {
                "type": "string"
              },
              {
                "type": "null"
              }
            ]
          }
        },
        "required": [
          "items"
        ]
      },
      "NodeConnections": {
        "type": "object",
        "properties": {
          "node": {
            "type": "string"
          },
          "connections": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "clientId": {
                  "type": "string"
                },
                "userId": {
                  "type": "string"
                }
              },
              "required": [
                "clientId",
                "userId"
              ]
            }
          }
        },
        "required": [
          "node",
          "connections"
        ]
      }
    },
    "securitySchemes": {
      "ApiKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "The server API key (`<data-dir>/api-key`): the app's backend."
      },
      "UserToken": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "A client token (`greenroom token`), or `?token=` where a player cannot set headers."
      }
    }
  },
  "paths": {
    "/health": {
      "get": {
        "summary": "Whether the server is up",
        "operationId": "health",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Operations"
        ],
        "security": []
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics",
        "operationId": "metrics",
        "responses": {
          "200": {
            "description": "The Prometheus text format.",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Operations"
        ],
        "security": []
      }
    },
    "/openapi.json": {
      "get": {
        "summary": "This document",
        "operationId": "openAPIDocument",
        "responses": {
          "200": {
            "description": "OpenAPI 3.1",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Operations"
        ],
        "security": []
      }
    },
    "/v1/connect": {
      "get": {
        "summary": "Whether a WebSocket upgrade would be accepted (upgrade here to connect)",
        "operationId": "checkConnect",
        "responses": {
          "200": {
            "description": "An upgrade with this token would be accepted."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Realtime"
        ],
        "security": [
          {
            "UserToken": []
          }
        ],
        "parameters": [
          {
            "name": "token",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The client token, for clients that cannot set headers."
          }
        ]
      }
    },
    "/v1/users": {
      "post": {
        "summary": "Create a user",
        "operationId": "createUser",
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UserArgs"
              }
            }
          }
        }
      },
      "get": {
        "summary": "List users, by id",
        "operationId": "listUsers",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UserPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "ids",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "Comma-separated ids."
          },
          {
            "name": "nicknamePrefix",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/users/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A user",
        "operationId": "getUser",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      },
      "put": {
        "summary": "Replace a user's fields",
        "operationId": "replaceUser",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UserArgs"
              }
            }
          }
        }
      },
      "patch": {
        "summary": "Set and unset a user's fields",
        "operationId": "updateUser",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/User"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/UserPartialUpdate"
              }
            }
          }
        }
      },
      "delete": {
        "summary": "Delete a user (its connections close with 4101)",
        "operationId": "deleteUser",
        "responses": {
          "204": {
            "description": "Done; no body."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Users"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/streams/{stream}/events": {
      "parameters": [
        {
          "name": "stream",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          },
          "description": "A `user:ID` or `app:NAME` stream to publish to; any stream to read."
        }
      ],
      "post": {
        "summary": "Publish an event",
        "operationId": "publishEvent",
        "responses": {
          "201": {
            "description": "Stored",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StreamEvent"
                }
              }
            }
          },
          "200": {
            "description": "The event stored earlier with the same idempotency key",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/StreamEvent"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Streams"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/Publish"
              }
            }
          }
        }
      },
      "get": {
        "summary": "Read a stream's stored events",
        "operationId": "readEvents",
        "responses": {
          "200": {
            "description": "Oldest first.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/StreamEvent"
                  }
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Streams"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "after",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000
            }
          }
        ]
      }
    },
    "/v1/events": {
      "post": {
        "summary": "Publish many events in one commit",
        "operationId": "publishEvents",
        "responses": {
          "201": {
            "description": "Stored, in the request's order",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/BatchPublishResult"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Streams"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/BatchPublish"
              }
            }
          }
        }
      }
    },
    "/v1/channels": {
      "post": {
        "summary": "Create a chat channel as `createdBy`",
        "operationId": "createChannel",
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Channel"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ChannelCreate"
              }
            }
          }
        }
      },
      "get": {
        "summary": "Every channel, the most recently active first",
        "operationId": "listChannels",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ChannelPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/channels/{id}/members": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A channel's members and invitees",
        "operationId": "listChannelMembers",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/ChannelMember"
                  }
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/channels/{id}/members/{userId}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        },
        {
          "name": "userId",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "delete": {
        "summary": "Remove a member (or an invitation); members get `member.left`",
        "operationId": "removeChannelMember",
        "responses": {
          "204": {
            "description": "Done; no body."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/channels/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A channel",
        "operationId": "getChannel",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Channel"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      },
      "patch": {
        "summary": "Change a channel",
        "operationId": "updateChannel",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Channel"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ChannelPartialUpdate"
              }
            }
          }
        }
      }
    },
    "/v1/channels/{id}/messages": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "post": {
        "summary": "Send a message as a member",
        "operationId": "sendMessage",
        "responses": {
          "201": {
            "description": "Sent",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Message"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/MessageSend"
              }
            }
          }
        }
      },
      "get": {
        "summary": "A channel's newest messages, oldest first",
        "operationId": "listRecentMessages",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Message"
                  }
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          }
        ]
      }
    },
    "/v1/channels/{id}/messages/{messageId}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        },
        {
          "name": "messageId",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "patch": {
        "summary": "Change a message",
        "operationId": "updateMessage",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Message"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/MessagePartialUpdate"
              }
            }
          }
        }
      },
      "delete": {
        "summary": "Delete a message (it stays in the history, emptied); members get `message.deleted`",
        "operationId": "deleteMessage",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Message"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Chat"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/live-events": {
      "get": {
        "summary": "Every live event, newest first",
        "operationId": "listLiveEvents",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/LiveEventPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Live events"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "state",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "created",
                "ready",
                "ongoing",
                "ended"
              ]
            }
          },
          {
            "name": "createdBy",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/live-events/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A live event",
        "operationId": "getLiveEvent",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/LiveEvent"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Live events"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/live-events/{id}/end": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "post": {
        "summary": "End a live event (from ready or ongoing); `endedBy` is `$backend`",
        "operationId": "endLiveEvent",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/LiveEvent"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Live events"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/meetings": {
      "post": {
        "summary": "Create a meeting (unless it exists)",
        "operationId": "createMeeting",
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Meeting"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Meetings"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/MeetingCreate"
              }
            }
          }
        }
      },
      "get": {
        "summary": "Every meeting, newest first, with its participants",
        "operationId": "listMeetings",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/MeetingPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Meetings"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/meetings/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A meeting with its participants",
        "operationId": "getMeeting",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Meeting"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Meetings"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/meetings/{id}/end": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "post": {
        "summary": "End a meeting as a moderator would: everyone leaves",
        "operationId": "endMeeting",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Meeting"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Meetings"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/connections": {
      "get": {
        "summary": "This node's WebSocket connections",
        "operationId": "listConnections",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NodeConnections"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Operations"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/console": {
      "get": {
        "summary": "The admin console",
        "operationId": "consolePage",
        "responses": {
          "200": {
            "description": "The page.",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Console"
        ],
        "security": []
      }
    },
    "/console/console.js": {
      "get": {
        "summary": "The admin console's script",
        "operationId": "consoleScript",
        "responses": {
          "200": {
            "description": "The page.",
            "content": {
              "text/javascript": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Console"
        ],
        "security": []
      }
    },
    "/v1/videos": {
      "post": {
        "summary": "Create a video and its resumable upload (videos.create)",
        "operationId": "createVideo",
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/VideoUploadTicket"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/VideoCreate"
              }
            }
          }
        }
      },
      "get": {
        "summary": "List videos (videos.read)",
        "operationId": "listVideos",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/VideoPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "owner",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "status",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "uploading",
                "processing",
                "ready",
                "failed"
              ]
            }
          },
          {
            "name": "tag",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "sort",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "newest",
                "oldest"
              ]
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/videos/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A video (videos.read)",
        "operationId": "getVideo",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Video"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ]
      },
      "patch": {
        "summary": "Change a video (videos.edit, its owner)",
        "operationId": "updateVideo",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Video"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/VideoUpdate"
              }
            }
          }
        }
      },
      "delete": {
        "summary": "Delete a video (videos.delete, its owner)",
        "operationId": "deleteVideo",
        "responses": {
          "204": {
            "description": "Done; no body."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/videos/{id}/file": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "The uploaded file, with `Range` requests",
        "operationId": "getVideoFile",
        "responses": {
          "200": {
            "description": "The file.",
            "content": {
              "video/mp4": {
                "schema": {
                  "type": "string",
                  "format": "binary"
                }
              }
            }
          },
          "206": {
            "description": "The range asked for.",
            "content": {
              "video/mp4": {
                "schema": {
                  "type": "string",
                  "format": "binary"
                }
              }
            }
          },
          "416": {
            "description": "The range is outside the file."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/videos/{id}/thumbnail": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "The thumbnail",
        "operationId": "getVideoThumbnail",
        "responses": {
          "200": {
            "description": "A JPEG.",
            "content": {
              "image/jpeg": {
                "schema": {
                  "type": "string",
                  "format": "binary"
                }
              }
            }
          },
          "206": {
            "description": "The range asked for.",
            "content": {
              "image/jpeg": {
                "schema": {
                  "type": "string",
                  "format": "binary"
                }
              }
            }
          },
          "416": {
            "description": "The range is outside the file."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/videos/{id}/index.m3u8": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "The HLS master playlist",
        "operationId": "getVideoPlaylist",
        "responses": {
          "200": {
            "description": "HLS.",
            "content": {
              "application/vnd.apple.mpegurl": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "token",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/v1/videos/{id}/hls/{rendition}/{file}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        },
        {
          "name": "rendition",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        },
        {
          "name": "file",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A rendition's playlist or segment",
        "operationId": "getVideoHLSFile",
        "responses": {
          "200": {
            "description": "A playlist or an MPEG-TS segment.",
            "content": {
              "application/vnd.apple.mpegurl": {
                "schema": {
                  "type": "string"
                }
              },
              "video/mp2t": {
                "schema": {
                  "type": "string",
                  "format": "binary"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          },
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "token",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/v1/uploads/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "How much of an upload the server holds",
        "operationId": "getUpload",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UploadOffset"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          }
        ]
      },
      "patch": {
        "summary": "Append bytes to an upload at `Upload-Offset`",
        "operationId": "appendUpload",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UploadOffset"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/octet-stream": {
              "schema": {
                "type": "string",
                "format": "binary"
              }
            }
          }
        },
        "parameters": [
          {
            "name": "Upload-Offset",
            "in": "header",
            "required": true,
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          }
        ]
      }
    },
    "/v1/uploads/{id}/complete": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "post": {
        "summary": "Finish an upload: the video is processed",
        "operationId": "completeUpload",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Video"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Videos"
        ],
        "security": [
          {
            "UserToken": []
          }
        ]
      }
    },
    "/v1/connections/disconnect": {
      "post": {
        "summary": "Close this node's connections (of one user, or all)",
        "operationId": "disconnect",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Disconnected"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Operations"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/Disconnect"
              }
            }
          }
        }
      }
    },
    "/v1/webhooks": {
      "post": {
        "summary": "Register a webhook endpoint (its secret is shown this once)",
        "operationId": "createWebhook",
        "responses": {
          "201": {
            "description": "Registered",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookEndpoint"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/WebhookCreate"
              }
            }
          }
        }
      },
      "get": {
        "summary": "Every webhook endpoint",
        "operationId": "listWebhooks",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookEndpointList"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/webhooks/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "A webhook endpoint",
        "operationId": "getWebhook",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookEndpoint"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      },
      "delete": {
        "summary": "Remove an endpoint with its queued and parked deliveries",
        "operationId": "deleteWebhook",
        "responses": {
          "204": {
            "description": "Done; no body."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/v1/webhooks/{id}/parked": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "get": {
        "summary": "Deliveries that failed every attempt",
        "operationId": "listParkedDeliveries",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookDeliveryPage"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "parameters": [
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 500
            }
          },
          {
            "name": "cursor",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The `next` of the page before."
          }
        ]
      }
    },
    "/v1/webhooks/{id}/replay": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string"
          }
        }
      ],
      "post": {
        "summary": "Queue parked deliveries again",
        "operationId": "replayDeliveries",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WebhookReplayResult"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Webhooks"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/WebhookReplay"
              }
            }
          }
        }
      }
    },
    "/v1/push/template": {
      "get": {
        "summary": "The push notifications' text",
        "operationId": "getPushTemplate",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PushTemplate"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Push"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      },
      "put": {
        "summary": "Set the push notifications' text",
        "operationId": "setPushTemplate",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PushTemplate"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Push"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PushTemplate"
              }
            }
          }
        }
      },
      "delete": {
        "summary": "Back to the default text",
        "operationId": "resetPushTemplate",
        "responses": {
          "204": {
            "description": "Done; no body."
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Push"
        ],
        "security": [
          {
            "ApiKey": []
          }
        ]
      }
    },
    "/demo": {
      "get": {
        "summary": "The media demo page",
        "operationId": "demoPage",
        "responses": {
          "200": {
            "description": "HTML.",
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Media"
        ],
        "security": []
      }
    },
    "/demo/demo.js": {
      "get": {
        "summary": "The media demo page's script",
        "operationId": "demoScript",
        "responses": {
          "200": {
            "description": "JavaScript.",
            "content": {
              "text/javascript": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "default": {
            "description": "An error: its HTTP status follows its code (401 credentials, 403 rights, 404 not found, 409 conflicts, 413 too large, 429 limits, 503 shutting down, 400 the rest).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "tags": [
          "Media"
        ],
        "security": []
      }
    }
  }
}
"""#
}
